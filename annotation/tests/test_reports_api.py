"""The report API: state and job, recompute, tie rule, figure, tables and exports; who may call it."""

from __future__ import annotations

import json

import pytest
from rest_framework.test import APIClient

from annotation.services import project_create
from annotation.tests.factories import submit
from core.models import Job

pytestmark = pytest.mark.django_db


@pytest.fixture
def labelled(project, make_items, members):
    annotators = members(3)
    for item in make_items(project, 2, reference=[[], ["trend_error"]]):
        for annotator in annotators:
            submit(project, item, annotator, [["value_error"], []])
    return annotators


def base(project) -> str:
    return f"/api/v1/projects/{project.slug}"


def computed(api, project, django_capture_on_commit_callbacks, **body):
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(f"{base(project)}/report/compute/", body, format="json")
    assert response.status_code == 202, response.content
    return response


def test_the_report_is_stale_until_computed_then_served_with_its_job(
    researcher_api, project, labelled, django_capture_on_commit_callbacks
):
    before = researcher_api.get(f"{base(project)}/report/").json()
    assert before["stale"] and before["report"] is None and before["job"] is None
    assert before["labels"] == "annotators"
    job = computed(researcher_api, project, django_capture_on_commit_callbacks).json()
    assert job["state"] == "queued"
    after = researcher_api.get(f"{base(project)}/report/").json()
    assert not after["stale"] and after["job"]["state"] == "done"
    data = after["report"]["data"]
    assert data["agreement"]["decisions"][0]["decision"] == "factual"
    assert "annotator_names" not in data


def test_reference_labels_and_every_label_set_are_separate_reports(
    researcher_api, project, labelled, django_capture_on_commit_callbacks
):
    computed(researcher_api, project, django_capture_on_commit_callbacks, labels="reference")
    reference = researcher_api.get(f"{base(project)}/report/?labels=reference").json()
    assert reference["report"]["data"]["labels"] == "reference"
    assert reference["report"]["data"]["tables"]["factuality"][-1]["nonfactual_sentences"] == 2
    everyone = researcher_api.get(f"{base(project)}/report/?include_excluded=true").json()
    assert everyone["include_excluded"] and everyone["report"] is None


def test_bad_query_values_are_a_400_with_the_field(researcher_api, project):
    response = researcher_api.get(f"{base(project)}/report/?labels=crowd")
    assert response.status_code == 400
    assert "labels" in response.json()["errors"]
    response = researcher_api.post(
        f"{base(project)}/report/compute/", {"labels": "crowd"}, format="json"
    )
    assert response.status_code == 400


def test_the_tie_rule_is_read_and_changed(researcher_api, project):
    url = f"{base(project)}/report/settings/"
    assert researcher_api.get(url).json() == {"tie_rule": "negative"}
    response = researcher_api.patch(url, {"tie_rule": "positive"}, format="json")
    assert response.status_code == 200 and response.json() == {"tie_rule": "positive"}
    project.refresh_from_db()
    assert project.tie_rule == "positive"
    bad = researcher_api.patch(url, {"tie_rule": "maybe"}, format="json")
    assert bad.status_code == 400 and "tie_rule" in bad.json()["errors"]
    # A PATCH changes what it sends: nothing sent, nothing changed; an unknown key refused.
    empty = researcher_api.patch(url, {}, format="json")
    assert empty.status_code == 200 and empty.json() == {"tie_rule": "positive"}
    unknown = researcher_api.patch(url, {"tie": "negative"}, format="json")
    assert unknown.status_code == 400 and "tie" in unknown.json()["errors"]


def test_figure_and_tables_come_from_the_stored_report(
    researcher_api, project, labelled, django_capture_on_commit_callbacks
):
    missing = researcher_api.get(f"{base(project)}/report/figure/")
    assert missing.status_code == 404 and "compute" in missing.json()["detail"]
    computed(researcher_api, project, django_capture_on_commit_callbacks)
    figure = researcher_api.get(f"{base(project)}/report/figure/", HTTP_ACCEPT="image/svg+xml")
    assert figure.status_code == 200 and figure["Content-Type"] == "image/svg+xml"
    assert figure.content.startswith(b"<svg")
    table = researcher_api.get(f"{base(project)}/report/tables/factuality/", HTTP_ACCEPT="text/csv")
    assert table.status_code == 200
    assert table.content.decode().splitlines()[0].startswith("split,captions,")
    unknown = researcher_api.get(f"{base(project)}/report/tables/nope/")
    assert unknown.status_code == 404 and "factuality" in unknown.json()["detail"]
    # ?format= is not theirs: the file is the same whatever it says, and it is not offered.
    for value in ("json", "png"):
        same = researcher_api.get(f"{base(project)}/report/tables/factuality/?format={value}")
        assert same.status_code == 200 and same.content == table.content
        svg = researcher_api.get(f"{base(project)}/report/figure/?format={value}")
        assert svg.status_code == 200 and svg.content == figure.content
    schema = researcher_api.get("/api/schema/?format=json").json()["paths"]
    for path in ("report/figure/", "report/tables/{name}/", "exports/{fmt}/"):
        operation = schema[f"/api/v1/projects/{{slug}}/{path}"]["get"]
        assert "format" not in [p["name"] for p in operation.get("parameters", [])], path


@pytest.mark.parametrize(
    ("fmt", "kind"),
    [
        ("chocolate", "application/json"),
        ("labels-csv", "text/csv"),
        ("labels-jsonl", "application/x-ndjson"),
        ("report-json", "application/json"),
    ],
)
def test_each_export_downloads(researcher_api, project, labelled, fmt, kind):
    response = researcher_api.get(f"{base(project)}/exports/{fmt}/")
    assert response.status_code == 200
    assert response["Content-Type"].startswith(kind)
    assert "attachment" in response["Content-Disposition"]
    body = b"".join(response.streaming_content).decode()
    assert body
    for annotator in labelled:
        assert annotator.username not in body
    if fmt == "chocolate":
        assert len(json.loads(body)) == 2


def test_an_unknown_export_format_is_a_404_that_names_the_formats(researcher_api, project):
    response = researcher_api.get(f"{base(project)}/exports/xlsx/")
    assert response.status_code == 404
    detail = response.json()["detail"]
    assert "“xlsx”" in detail
    for fmt in ("chocolate", "labels-csv", "labels-jsonl", "report-json", "dataset-zip"):
        assert fmt in detail
    assert response.json()["errors"]["fmt"] == [detail]


def test_another_researchers_project_is_a_plain_404_whatever_the_format(
    researcher_api, project, other_researcher
):
    researcher_api.force_authenticate(other_researcher)
    response = researcher_api.get(f"{base(project)}/exports/xlsx/")
    assert response.status_code == 404
    assert response.json()["detail"] == "Not found."


URLS = [
    ("get", "/report/"),
    ("post", "/report/compute/"),
    ("get", "/report/settings/"),
    ("patch", "/report/settings/"),
    ("get", "/report/figure/"),
    ("get", "/report/tables/factuality/"),
    ("get", "/exports/chocolate/"),
    ("get", "/exports/labels-csv/"),
]


@pytest.mark.parametrize(("method", "path"), URLS)
def test_annotators_and_anonymous_callers_are_refused(annotator, project, method, path):
    as_annotator = APIClient()
    as_annotator.force_authenticate(annotator)
    response = getattr(as_annotator, method)(f"{base(project)}{path}")
    assert response.status_code == 403
    anonymous = getattr(APIClient(), method)(f"{base(project)}{path}")
    assert anonymous.status_code in (401, 403)
    assert not Job.objects.exists()


@pytest.mark.parametrize(("method", "path"), URLS)
def test_another_researchers_project_is_a_404(other_researcher, project, method, path):
    api = APIClient()
    api.force_authenticate(other_researcher)
    response = getattr(api, method)(f"{base(project)}{path}", {"tie_rule": "positive"})
    assert response.status_code == 404
    project.refresh_from_db()
    assert project.tie_rule == "negative" and not Job.objects.exists()


def test_a_collaborator_sees_the_shared_projects_report(other_researcher, researcher):
    shared = project_create(owner=researcher, title="Shared")
    shared.collaborators.add(other_researcher)
    api = APIClient()
    api.force_authenticate(other_researcher)
    assert api.get(f"/api/v1/projects/{shared.slug}/report/").status_code == 200
