"""The HMI dataset export: CHARTOM layout + HMI.csv + MIND questions + README, and JSON."""

import csv
import io
import json
import zipfile

import pytest
from django.core.management import CommandError, call_command

from studies.benchmark_format import read_benchmark
from studies.models import Chart
from studies.services.exports import export_write
from studies.services.library.importing import chartset_import
from studies.services.results.compute import results_compute
from studies.tests.factories import make_study, simulated_study

pytestmark = pytest.mark.django_db


def _zip(study) -> zipfile.ZipFile:
    buffer = io.BytesIO()
    export_write(study=study, slug="hmi-zip", out=buffer)
    buffer.seek(0)
    return zipfile.ZipFile(buffer)


def test_the_zip_holds_the_chartom_layout_hmi_csv_mind_questions_and_a_data_card(researcher):
    study = simulated_study(researcher, participants=12, compute=False)
    archive = _zip(study)
    names = set(archive.namelist())
    for chart_id in ("G1_Q1_1", "G1_Q1_2", "G1_Q3_2"):
        assert f"chart_images/{chart_id}.png" in names
        assert f"FACT_questions/{chart_id}.txt" in names
        assert f"MIND_questions/{chart_id}.txt" in names
    assert {"FACT_answer_keys.csv", "chart_manipulations.csv", "HMI.csv", "README.md"} <= names
    rows = list(csv.DictReader(io.StringIO(archive.read("HMI.csv").decode())))
    assert len(rows) == 6
    data = results_compute(study, fit_models=False)
    expected = {c["chart_id"]: c for c in data["charts"]}
    for row in rows:
        chart = expected[row["chart id"]]
        assert float(row["HMI"]) == pytest.approx(chart["hmi"])
        assert int(row["n"]) == chart["n"]
        assert float(row["CI low"]) == pytest.approx(chart["ci_low"])
        assert row["version"] in ("1", "2") and row["answer key"]
    assert "predict" in archive.read("MIND_questions/G1_Q1_2.txt").decode()
    readme = archive.read("README.md").decode()
    assert (
        study.title in readme and "N = " in readme and "attention-check failures allowed" in readme
    )
    assert "Wilson" in readme


def test_the_zip_round_trips_through_the_chart_library_importer(researcher, tmp_path):
    study = simulated_study(researcher, participants=5, compute=False)
    path = tmp_path / "hmi.zip"
    with open(path, "wb") as handle:
        export_write(study=study, slug="hmi-zip", out=handle)
    benchmark = read_benchmark(path)
    assert benchmark.ok, benchmark.problems
    originals = {c.chart_id: c for c in Chart.objects.filter(question__study_pairs__study=study)}
    assert {c.chart_id for c in benchmark.charts} == set(originals)
    for record in benchmark.charts:
        original = originals[record.chart_id]
        assert record.question_text == original.question.text
        assert record.answer_key == original.question.answer_key
        assert record.version == original.version
    result = chartset_import(owner=researcher, source=path, slug="reimported")
    assert result.pairs == 3 and result.chart_set.questions.count() == 3


def test_the_json_dataset_carries_the_same_numbers_and_definitions(researcher):
    study = simulated_study(researcher, participants=8, compute=False)
    buffer = io.BytesIO()
    export_write(study=study, slug="hmi-json", out=buffer)
    body = json.loads(buffer.getvalue())
    assert body["study"]["slug"] == study.slug
    assert "HMI" in body["definitions"] and body["funnel"]["took_part"] == 8
    chart = body["charts"][0]
    assert {"hmi", "n", "ci_low", "ci_high", "fact_question", "mind_question"} <= set(chart)


def test_an_empty_study_exports_with_a_note_not_a_number(researcher):
    study = make_study(researcher, pairs=2)
    archive = _zip(study)
    rows = list(csv.DictReader(io.StringIO(archive.read("HMI.csv").decode())))
    assert all(r["HMI"] == "" and r["n"] == "0" and r["note"] for r in rows)
    assert "No included participants" in archive.read("README.md").decode()


def test_the_command_writes_the_zip_and_rejects_unknown_studies(researcher, tmp_path):
    study = simulated_study(researcher, participants=3, compute=False)
    out = tmp_path / "x.zip"
    call_command("export_study", study.slug, "--format", "hmi-zip", "--output", str(out))
    assert zipfile.ZipFile(out).read("HMI.csv")
    with pytest.raises(CommandError, match="No study"):
        call_command("export_study", "missing", "--format", "hmi-zip")
