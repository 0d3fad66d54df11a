"""The model evaluation API: import (multipart), results, prompts, and who may use them."""

import io
import json
import zipfile

import pytest
from django.urls import reverse

from studies.models import ModelAnswer
from studies.tests.factories import make_study
from studies.tests.model_eval_helpers import full_rows, row, upload

pytestmark = pytest.mark.django_db


@pytest.fixture
def study(researcher):
    return make_study(researcher, pairs=3, checks=None)


def url(name, study):
    return reverse(f"api:{name}", args=[study.slug])


def test_it_imports_answers_and_reports_coverage(researcher_api, study):
    rows = [row("m1", c) for c in ("G1_Q1_1", "G1_Q1_2")]
    response = researcher_api.post(
        url("study-model-answers-import", study), {"file": upload(rows)}, format="multipart"
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["imported"] == {"m1": 2}
    assert body["coverage"][0]["answered"] == 2
    assert body["coverage"][0]["total"] == 6


def test_it_rejects_unknown_charts_and_duplicates_with_a_400_and_no_rows(researcher_api, study):
    rows = full_rows("m1") + [row("m1", "G1_Q1_1"), row("m1", "NOPE_1")]
    response = researcher_api.post(
        url("study-model-answers-import", study), {"file": upload(rows)}, format="multipart"
    )
    assert response.status_code == 400
    body = response.json()
    assert "Nothing imported" in body["detail"]
    assert [(p["row"], p["kind"]) for p in body["problems"]] == [
        (7, "duplicate"),
        (8, "unknown_chart"),
    ]
    assert len(body["errors"]["file"]) == 2
    assert not ModelAnswer.objects.exists()


def test_it_requires_a_file(researcher_api, study):
    response = researcher_api.post(url("study-model-answers-import", study), {}, format="multipart")
    assert response.status_code == 400
    assert "file" in response.json()["errors"]


def test_the_results_endpoint_returns_every_analysis(researcher_api, study):
    researcher_api.post(
        url("study-model-answers-import", study),
        {"file": upload(full_rows("m1") + full_rows("m2"))},
        format="multipart",
    )
    body = researcher_api.get(url("study-model-results", study) + "?svg=1").json()
    assert body["models"] == ["m1", "m2"]
    for part in ("fact", "mind", "log_odds", "kendall", "kendall_empirical", "justifications"):
        assert part in body
    assert body["fact"]["overall"]["rows"]
    assert body["log_odds"]["models_empirical"]["rows"]
    assert body["svg"]["fact"].startswith("<svg")
    assert "svg" not in researcher_api.get(url("study-model-results", study)).json()


def test_the_prompts_zip_has_an_image_and_a_manifest_line_per_chart(researcher_api, study):
    response = researcher_api.get(url("study-model-prompts", study))
    assert response.status_code == 200
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    lines = [json.loads(x) for x in archive.read("prompts.jsonl").decode().splitlines()]
    assert [x["chart_id"] for x in lines] == [f"G1_Q{q}_{v}" for q in (1, 2, 3) for v in (1, 2)]
    first = lines[0]
    assert archive.read(first["image"])[:4] == b"\x89PNG"
    assert first["fact_prompt"] in first["mind_prompt"]
    assert set(first) == {"chart_id", "image", "fact_prompt", "mind_prompt"}


@pytest.mark.parametrize(
    "name", ["study-model-answers-import", "study-model-results", "study-model-prompts"]
)
def test_other_researchers_get_404_and_annotators_403(name, study, other_researcher, annotator_api):
    from rest_framework.test import APIClient

    other = APIClient()
    other.force_authenticate(other_researcher)
    method = "post" if name.endswith("import") else "get"
    assert getattr(other, method)(url(name, study)).status_code == 404
    assert getattr(annotator_api, method)(url(name, study)).status_code == 403


def test_metrics_are_over_what_a_partial_model_answered(researcher_api, study):
    rows = [row("half", c) for c in ("G1_Q1_1", "G1_Q1_2", "G1_Q2_1")]
    rows[2] = row("half", "G1_Q2_1", fact="99")
    researcher_api.post(
        url("study-model-answers-import", study), {"file": upload(rows)}, format="multipart"
    )
    body = researcher_api.get(url("study-model-results", study)).json()
    overall = body["fact"]["overall"]
    n, errors = overall["columns"].index("n"), overall["columns"].index("n_errors")
    scope = overall["columns"].index("scope")
    everything = next(r for r in overall["rows"] if r[scope] == "all")
    assert (everything[n], everything[errors]) == (3, 1)
    assert body["coverage"][0]["missing"] == ["G1_Q2_2", "G1_Q3_1", "G1_Q3_2"]
