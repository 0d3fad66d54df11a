"""The model analyses export: the zip's files, headers and values, its README, and who may get it."""

import io
import json
import zipfile
from datetime import UTC, datetime

import pandas as pd
import pytest
from django.core.cache import cache
from django.core.management import CommandError, call_command
from django.urls import reverse
from rest_framework.test import APIClient

from demo.model_eval import load_model_eval_demo
from studies.services.model_eval import model_answers_import
from studies.services.model_eval_export import (
    CSV_FILES,
    LIST_SEPARATOR,
    ModelEvalExportError,
    model_eval_export_write,
)
from studies.tests.factories import make_study, simulated_study
from studies.tests.model_eval_helpers import as_file, full_rows

pytestmark = pytest.mark.django_db

WHEN = datetime(2025, 3, 4, 5, 6, 7, tzinfo=UTC)
FIGURES = {
    "figures/fact_error_rates.svg",
    "figures/fact_error_rates_by_group.svg",
    "figures/mind_predicted_vs_hmi.svg",
    "figures/mind_group_arrows.svg",
}


@pytest.fixture(autouse=True)
def _empty_cache():
    cache.clear()


@pytest.fixture
def study(researcher):
    study = simulated_study(researcher, participants=20, pairs=3, checks=None)
    load_model_eval_demo(study)
    return study


@pytest.fixture
def empty_study(researcher):
    return make_study(researcher, pairs=3, checks=None)


def export(study, **options) -> zipfile.ZipFile:
    buffer = io.BytesIO()
    model_eval_export_write(study=study, out=buffer, generated_at=WHEN, **options)
    return zipfile.ZipFile(buffer)


def read_csv(archive, name) -> pd.DataFrame:
    # Every cell as text first, so the comparison below sees what a reader sees.
    return pd.read_csv(io.BytesIO(archive.read(name)), keep_default_na=False, dtype=str)


def test_the_zip_has_a_csv_per_table_the_report_the_figures_and_a_readme(study):
    archive = export(study)
    names = archive.namelist()
    assert names[:2] == ["README.txt", "report.json"]
    assert (
        set(names)
        == {"README.txt", "report.json"}
        | {s.name for s in CSV_FILES}
        | FIGURES
        | {"figures/log_odds.svg"}
        or set(names) == {"README.txt", "report.json"} | {s.name for s in CSV_FILES} | FIGURES
    )
    for spec in CSV_FILES:
        header = archive.read(spec.name).decode().splitlines()[0]
        assert header.split(",") == spec.header, spec.name
    for name in FIGURES:
        assert archive.read(name).decode().startswith("<svg")
    assert 'id="humans-all"' in archive.read("figures/fact_error_rates.svg").decode()


def test_the_csv_headers_are_the_documented_columns():
    headers = {spec.name: spec.header for spec in CSV_FILES}
    assert headers["fact_error_rates.csv"] == [
        "model", "scope", "n", "n_errors", "error_rate", "ci_low", "ci_high",
    ]  # fmt: skip
    assert headers["mind_metrics.csv"][:11] == [
        "model", "n", "n_without_prediction", "n_without_hmi", "mae", "mae_sd",
        "pearson_r", "pearson_p", "slope", "intercept", "r_squared",
    ]  # fmt: skip
    assert headers["log_odds.csv"][:4] == ["population", "group", "manipulation", "estimator"]
    assert headers["kendall_tau.csv"][3:5] == ["tau", "p_value"]
    assert "phrases" in headers["justifications_charts.csv"]
    assert headers["coverage.csv"][-2:] == ["coverage", "missing"]


def _as_text(value):
    if value is None:
        return ""
    if isinstance(value, list):
        return LIST_SEPARATOR.join(str(v) for v in value)
    return str(value)


def test_every_csv_value_matches_report_json(study):
    archive = export(study)
    report = json.loads(archive.read("report.json"))
    tables = {
        "fact_error_rates.csv": report["fact"]["overall"],
        "fact_error_rates_by_group.csv": report["fact"]["by_group"],
        "fact_chi_square.csv": report["fact"]["chi_square"],
        "mind_metrics.csv": report["mind"]["metrics"],
        "mind_predictions.csv": report["mind"]["predictions"],
        "mind_group_arrows.csv": report["mind"]["arrows"],
        "justifications_per_model.csv": report["justifications"]["per_model"],
        "justifications_by_group.csv": report["justifications"]["by_group"],
        "justifications_charts.csv": report["justifications"]["charts"],
    }
    for name, table in tables.items():
        frame = read_csv(archive, name)
        expected = [[_as_text(v) for v in row] for row in table["rows"]]
        assert frame[table["columns"]].values.tolist() == expected, name
        assert table["rows"], name
    log_odds = read_csv(archive, "log_odds.csv")
    humans = log_odds[log_odds["population"] == "humans"]
    assert len(humans) == len(report["log_odds"]["humans"]["rows"]) > 0
    models = log_odds[log_odds["population"] == "models"]
    assert len(models) == len(report["log_odds"]["models"]["rows"]) + len(
        report["log_odds"]["models_empirical"]["rows"]
    )
    kendall = read_csv(archive, "kendall_tau.csv").set_index("comparison")
    assert kendall.loc["mixed vs empirical", "tau"] == _as_text(report["kendall_empirical"]["tau"])
    coverage = read_csv(archive, "coverage.csv")
    assert coverage["model"].tolist() == [c["model"] for c in report["coverage"]]


def test_the_csvs_read_back_with_pandas_as_numbers(study):
    archive = export(study)
    rates = pd.read_csv(io.BytesIO(archive.read("fact_error_rates.csv")))
    assert rates["model"].iloc[0] == "Humans"
    assert rates["error_rate"].dtype == float
    assert (rates["n_errors"] / rates["n"]).round(12).tolist() == rates["error_rate"].round(
        12
    ).tolist()
    metrics = pd.read_csv(io.BytesIO(archive.read("mind_metrics.csv")))
    assert metrics["model"].tolist() == ["flat-model", "perceptive-model"]
    assert metrics["mae"].between(0, 1).all()
    predictions = pd.read_csv(io.BytesIO(archive.read("mind_predictions.csv")))
    usable = predictions.dropna(subset=["prediction", "hmi"])
    assert (usable["abs_error"] - (usable["prediction"] - usable["hmi"]).abs()).abs().max() < 1e-12
    charts = pd.read_csv(io.BytesIO(archive.read("justifications_charts.csv")))
    assert set(charts["named"].dropna()) <= {True, False}


def test_numbers_keep_full_precision_unlike_the_page(study):
    report = json.loads(export(study).read("report.json"))
    table = report["fact"]["overall"]
    rows = [dict(zip(table["columns"], row, strict=True)) for row in table["rows"]]
    # Exactly k / n as a float: the page's 4-decimal rounding would not survive this.
    assert all(r["error_rate"] == r["n_errors"] / r["n"] for r in rows if r["n"])
    assert any(r["error_rate"] != round(r["error_rate"], 4) for r in rows if r["n"])


def test_the_readme_documents_every_file_and_column(study):
    archive = export(study)
    readme = archive.read("README.txt").decode()
    assert f"Study: {study.slug}" in readme
    assert "Generated: 2025-03-04T05:06:07+00:00" in readme
    assert f"Seed: {study.seed}" in readme
    assert "BinomialBayesMixedGLM (variational Bayes)" in readme
    assert "empirical, Haldane-Anscombe +0.5" in readme
    assert "Wilson score interval" in readme
    included = json.loads(archive.read("report.json"))["humans"]["participants"]
    assert f"Humans: {included} included participants" in readme
    assert 'labelled "Humans" in the tables' in readme
    for name in archive.namelist():
        assert f"- {name}: " in readme, name
    for spec in CSV_FILES:
        section = readme.split(f"- {spec.name}: ", 1)[1].split("\n- ", 1)[0]
        for column in spec.header:
            assert f"\n    {column}: " in section, (spec.name, column)
    report = json.loads(archive.read("report.json"))
    assert report["study"]["slug"] == study.slug
    assert report["generated_at"] == "2025-03-04T05:06:07+00:00"
    assert report["seed"] == study.seed
    assert "log_odds_models" in report["estimators"]
    assert "svg" not in report


def test_the_same_inputs_give_the_same_bytes(study):
    def raw():
        buffer = io.BytesIO()
        model_eval_export_write(study=study, out=buffer, generated_at=WHEN)
        return buffer.getvalue()

    first = raw()
    cache.clear()  # computed again, not served from the cache
    assert raw() == first


def test_the_seed_is_passed_to_the_mixed_model(study):
    report = json.loads(export(study, seed=7).read("report.json"))
    assert report["seed"] == 7


def test_a_study_without_model_answers_is_refused_with_a_clear_message(empty_study):
    with pytest.raises(ModelEvalExportError, match="No model answers imported yet"):
        model_eval_export_write(study=empty_study, out=io.BytesIO())


# ------------------------------------------------------------------ page, API, command


def test_the_models_page_has_the_export_button_and_serves_the_zip(client, researcher, study):
    client.force_login(researcher)
    html = client.get(reverse("studies:models", args=[study.slug])).content.decode()
    url = reverse("studies:models-export", args=[study.slug])
    assert f'href="{url}"' in html and "Download analyses (zip)" in html
    response = client.get(url)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/zip"
    assert f"{study.slug}-model-analyses.zip" in response["Content-Disposition"]
    assert "fact_error_rates.csv" in zipfile.ZipFile(io.BytesIO(response.content)).namelist()


def test_the_page_explains_that_there_is_nothing_to_export_yet(client, researcher, empty_study):
    client.force_login(researcher)
    page = reverse("studies:models", args=[empty_study.slug])
    assert "Download analyses" not in client.get(page).content.decode()
    response = client.get(reverse("studies:models-export", args=[empty_study.slug]), follow=True)
    assert response.redirect_chain[-1][0] == page
    assert "No model answers imported yet" in response.content.decode()


def test_other_researchers_get_404_and_annotators_403_on_the_page(
    client, study, other_researcher, annotator
):
    url = reverse("studies:models-export", args=[study.slug])
    client.force_login(other_researcher)
    assert client.get(url).status_code == 404
    client.force_login(annotator)
    assert client.get(url).status_code == 403


def test_the_api_serves_the_zip_to_the_owner_only(researcher_api, study, other_researcher):
    url = reverse("api:study-model-export", args=[study.slug])
    response = researcher_api.get(url)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    assert json.loads(archive.read("report.json"))["study"]["slug"] == study.slug
    other = APIClient()
    other.force_authenticate(other_researcher)
    assert other.get(url).status_code == 404
    assert APIClient().get(url).status_code in (401, 403)


def test_the_api_answers_409_when_there_is_nothing_to_export(researcher_api, empty_study):
    response = researcher_api.get(reverse("api:study-model-export", args=[empty_study.slug]))
    assert response.status_code == 409
    body = response.json()
    assert body["detail"].startswith("No model answers imported yet.")
    assert body["errors"] == {}


def test_the_api_refuses_annotators(annotator_api, study):
    url = reverse("api:study-model-export", args=[study.slug])
    assert annotator_api.get(url).status_code == 403


def test_the_command_writes_the_zip(study, tmp_path, capsys):
    out = tmp_path / "analyses.zip"
    call_command("export_model_eval", study.slug, str(out), "--seed", "3")
    archive = zipfile.ZipFile(out)
    assert json.loads(archive.read("report.json"))["seed"] == 3
    assert f"model analyses to {out}" in capsys.readouterr().out
    assert not (tmp_path / "analyses.zip.partial").exists()


def test_the_command_rejects_an_unknown_study(tmp_path):
    with pytest.raises(CommandError, match="No study with the slug 'nope'"):
        call_command("export_model_eval", "nope", str(tmp_path / "a.zip"))


def test_the_command_explains_a_study_without_answers_and_writes_nothing(empty_study, tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    with pytest.raises(CommandError, match="No model answers imported yet"):
        call_command("export_model_eval", empty_study.slug, str(folder / "a.zip"))
    assert list(folder.iterdir()) == []


def test_the_command_rejects_a_missing_directory(study, tmp_path):
    with pytest.raises(CommandError, match="no directory"):
        call_command("export_model_eval", study.slug, str(tmp_path / "nope" / "a.zip"))


def test_a_study_without_computed_results_exports_the_models_alone(empty_study):
    model_answers_import(study=empty_study, source=as_file(full_rows("m1")), filename="a.jsonl")
    archive = export(empty_study)
    rates = read_csv(archive, "fact_error_rates.csv")
    assert set(rates["model"]) == {"m1"}
    readme = archive.read("README.txt").decode()
    assert "Humans: none" in readme
    assert "- figures/log_odds.svg: not written" in readme
    assert "figures/log_odds.svg" not in archive.namelist()
    assert read_csv(archive, "mind_metrics.csv")["n"].tolist() == ["0"]
