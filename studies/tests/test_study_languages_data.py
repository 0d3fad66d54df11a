"""The language in the exports, the HMI split by language, translations over the API."""

import csv
import io
import json
import zipfile

import pyarrow.parquet as pq
import pytest
from django.urls import reverse

from studies.models import ParticipantSession
from studies.selectors.results import study_counted_response_count
from studies.services.exports import export_write
from studies.services.exports.hmi import hmi_json
from studies.services.results.compute import results_compute, results_snapshot_save
from studies.services.study import study_update
from studies.tests.factories import simulated_study

pytestmark = pytest.mark.django_db


def two_language_study(owner):
    study = simulated_study(owner, participants=12, pairs=2, compute=False)
    study_update(study=study, actor=owner, other_languages=["de"])
    # Every third simulated participant took it in German.
    german = list(study.sessions.order_by("id").values_list("id", flat=True))[::3]
    ParticipantSession.objects.filter(id__in=german).update(language="de")
    return study, set(german)


def test_the_results_split_hmi_by_language_with_the_same_rule(researcher):
    study, german = two_language_study(researcher)
    data = results_compute(study, fit_models=False)
    split = data["by_language"]
    assert [lang["code"] for lang in split["languages"]] == ["en", "de"]
    included = data["funnel"]["included"]
    assert sum(lang["participants"] for lang in split["languages"]) == included
    whole = {c["chart_id"]: c for c in data["charts"]}
    for row in split["rows"]:
        en, de = row["cells"]
        assert en["n"] + de["n"] == whole[row["chart_id"]]["n"]
        wrong = sum(round(c["hmi"] * c["n"]) for c in (en, de) if c["n"])
        assert wrong == round(whole[row["chart_id"]]["hmi"] * whole[row["chart_id"]]["n"])


def test_a_study_in_one_language_has_no_split(researcher):
    study = simulated_study(researcher, participants=4, pairs=2, compute=False)
    assert results_compute(study, fit_models=False)["by_language"] is None


def test_the_results_page_shows_a_table_per_language(client, researcher):
    study, _german = two_language_study(researcher)
    results_snapshot_save(
        study=study, data=results_compute(study), response_count=study_counted_response_count(study)
    )
    client.force_login(researcher)
    page = client.get(reverse("studies:results", args=[study.slug])).content.decode()
    assert "HMI by language" in page and "Deutsch" in page and "English" in page


def test_the_response_exports_carry_each_participants_language(researcher, tmp_path):
    study, german = two_language_study(researcher)
    for slug in ("responses-csv", "responses-wide-csv"):
        out = io.BytesIO()
        export_write(study=study, slug=slug, out=out)
        rows = list(csv.DictReader(io.StringIO(out.getvalue().decode())))
        assert {r["language"] for r in rows} == {"en", "de"}
    path = tmp_path / "r.parquet"
    with open(path, "wb") as handle:
        export_write(study=study, slug="responses-wide-parquet", out=handle)
    assert set(pq.read_table(path).column("language").to_pylist()) == {"en", "de"}


def test_the_hmi_exports_carry_the_split(researcher, tmp_path):
    study, _german = two_language_study(researcher)
    data = hmi_json(study)
    assert data["languages"] == ["en", "de"]
    assert {row["language"] for row in data["by_language"]} == {"en", "de"}
    path = tmp_path / "hmi.zip"
    export_write(study=study, slug="hmi-zip", out=str(path))
    with zipfile.ZipFile(path) as zf:
        table = list(csv.DictReader(io.StringIO(zf.read("HMI_by_language.csv").decode())))
        trials = list(csv.DictReader(io.StringIO(zf.read("log_odds_trials.csv").decode())))
        package = json.loads(zf.read("datapackage.json"))
    assert {r["language"] for r in table} == {"en", "de"}
    assert {r["language"] for r in trials} <= {"en", "de"} and trials
    assert "hmi_by_language" in {r["name"] for r in package["resources"]}


def test_translations_over_the_api(researcher, researcher_api):
    study, _german = two_language_study(researcher)
    question = study.pairs.order_by("id").first()
    url = f"/api/v1/studies/{study.slug}/translations/de/"
    body = {
        "consent_text": "Einwilligung",
        "questions": {str(question.pk): {"text": "Frage?", "options": ["a", "b"]}},
    }
    response = researcher_api.put(url, body, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["texts"]["consent_text"] == "Einwilligung"
    assert any("instructions" in m for m in response.json()["missing"])
    bad = researcher_api.put(url, {"questions": {"999999": {"text": "x"}}}, format="json")
    assert bad.status_code == 400 and "not one of this study's ids" in bad.content.decode()
    refused = researcher_api.put(
        f"/api/v1/studies/{study.slug}/translations/es/", {}, format="json"
    )
    assert refused.status_code == 400
    detail = researcher_api.get(f"/api/v1/studies/{study.slug}/").json()
    assert detail["language"] == "en" and detail["other_languages"] == ["de"]
    changed = researcher_api.patch(
        f"/api/v1/studies/{study.slug}/", {"other_languages": ["xx"]}, format="json"
    )
    assert changed.status_code == 400 and "Not offered: xx" in changed.content.decode()
