"""Participant answers and model justifications that start like a formula are escaped in every CSV."""

import io
import zipfile

import pandas as pd
import pytest

from core.tests.test_csv_safety import assert_no_formula_cells


@pytest.mark.django_db
def test_participant_answers_starting_with_equals_are_escaped_in_response_exports(researcher):
    from studies.models import Response
    from studies.services.exports import export_write
    from studies.tests.factories import simulated_study

    study = simulated_study(researcher, participants=2, compute=False)
    Response.objects.filter(session__study=study).update(raw_answer="=1+1")
    for slug in ("responses-csv", "responses-wide-csv"):
        buffer = io.BytesIO()
        export_write(study=study, slug=slug, out=buffer)
        text = buffer.getvalue().decode()
        assert_no_formula_cells(text)
        assert "'=1+1" in text


@pytest.mark.django_db
def test_model_names_and_justifications_starting_with_equals_are_escaped_in_the_model_export(
    researcher,
):
    from studies.services.model_eval import model_answers_import
    from studies.services.model_eval_export import model_eval_export_write
    from studies.tests.factories import simulated_study
    from studies.tests.model_eval_helpers import as_file, row

    study = simulated_study(researcher, participants=20, pairs=3, checks=None)
    rows = [
        row("=evil()", chart_id, why='=HYPERLINK("http://evil.example","truncated axis")')
        for chart_id in [f"G1_Q{q}_{v}" for q in (1, 2, 3) for v in (1, 2)]
    ]
    report = model_answers_import(study=study, source=as_file(rows), filename="a.jsonl")
    assert report.imported and not report.blocking
    buffer = io.BytesIO()
    model_eval_export_write(study=study, out=buffer)
    archive = zipfile.ZipFile(buffer)
    names = [n for n in archive.namelist() if n.endswith(".csv")]
    assert names
    for name in names:
        assert_no_formula_cells(archive.read(name).decode())
    predictions = pd.read_csv(io.BytesIO(archive.read("mind_predictions.csv")))
    assert set(predictions["model"]) == {"'=evil()"}
    # the statistics beside it stay numeric columns
    assert predictions["prediction"].dtype == float and predictions["hmi"].dtype == float
