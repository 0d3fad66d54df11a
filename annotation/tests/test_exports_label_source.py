"""``labels`` on the raw label exports: the annotators' labels unless ``reference`` names the
imported ones; an unknown value is a 400 naming the values there are (API, page, service)."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.urls import reverse

from annotation.services.exports import LABEL_COLUMNS
from annotation.tests.factories import submit
from core.errors import ServiceError

pytestmark = pytest.mark.django_db


@pytest.fixture
def labelled(project, make_items, members):
    (annotator,) = members(1)
    item, other = make_items(project, 2, reference=[["value_error"], []])
    submit(project, item, annotator, [[], ["trend_error"]])
    return {"item": item, "other": other}


def _rows(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def _api_csv(researcher_api, project, query: str):
    return researcher_api.get(
        f"/api/v1/projects/{project.slug}/exports/labels-csv/{query}", HTTP_ACCEPT="text/csv"
    )


def test_the_api_exports_the_reference_labels_when_asked(researcher_api, project, labelled):
    response = _api_csv(researcher_api, project, "?labels=reference")
    assert response.status_code == 200
    assert "reference-labels.csv" in response["Content-Disposition"]
    rows = _rows(b"".join(response.streaming_content).decode())
    assert list(rows[0]) == list(LABEL_COLUMNS)
    assert {r["annotator"] for r in rows} == {"reference"}
    # Two items, two sentences, seven categories; one decision marked on each item.
    assert len(rows) == 2 * 2 * 7
    marked = [(r["item"], r["sentence"], r["category"]) for r in rows if r["value"] == "1"]
    assert marked == [
        (labelled["item"].external_id, "0", "value_error"),
        (labelled["other"].external_id, "0", "value_error"),
    ]


def test_without_labels_the_raw_export_stays_the_annotators(researcher_api, project, labelled):
    rows = _rows(b"".join(_api_csv(researcher_api, project, "").streaming_content).decode())
    assert {r["annotator"] for r in rows} == {"A01"}
    rows = _rows(
        b"".join(_api_csv(researcher_api, project, "?labels=annotators").streaming_content).decode()
    )
    assert {r["annotator"] for r in rows} == {"A01"}


def test_the_jsonl_export_follows_the_same_choice(researcher_api, project, labelled):
    response = researcher_api.get(
        f"/api/v1/projects/{project.slug}/exports/labels-jsonl/?labels=reference",
        HTTP_ACCEPT="application/x-ndjson",
    )
    lines = [json.loads(line) for line in b"".join(response.streaming_content).splitlines()]
    assert {line["annotator"] for line in lines} == {"reference"} and len(lines) == 28


def test_the_page_download_honours_reference(client, researcher, password, project, labelled):
    client.login(username=researcher.username, password=password)
    url = reverse("annotation:project-export", args=[project.slug, "labels-csv"])
    rows = _rows(b"".join(client.get(url + "?labels=reference").streaming_content).decode())
    assert {r["annotator"] for r in rows} == {"reference"}
    rows = _rows(b"".join(client.get(url).streaming_content).decode())
    assert {r["annotator"] for r in rows} == {"A01"}


@pytest.mark.parametrize("fmt", ["labels-csv", "chocolate"])
def test_an_unknown_label_source_is_a_400_naming_the_allowed_ones_in_the_api(
    researcher_api, project, labelled, fmt
):
    response = researcher_api.get(
        f"/api/v1/projects/{project.slug}/exports/{fmt}/?labels=gold",
        HTTP_ACCEPT="application/json",
    )
    assert response.status_code == 400
    message = json.dumps(response.json())
    assert "gold" in message and "annotators, reference" in message


@pytest.mark.parametrize("name", ["project-export", "project-report"])
def test_an_unknown_label_source_is_a_400_naming_the_allowed_ones_on_the_page(
    client, researcher, password, project, labelled, name
):
    client.login(username=researcher.username, password=password)
    args = [project.slug, "labels-csv"] if name == "project-export" else [project.slug]
    response = client.get(reverse(f"annotation:{name}", args=args) + "?labels=gold")
    assert response.status_code == 400
    body = response.content.decode()
    assert "Unknown label source “gold”; use one of: annotators, reference." in body


def test_the_service_refuses_an_unknown_label_source(project):
    from annotation.services.exports import project_export

    with pytest.raises(ServiceError, match="use one of: annotators, reference"):
        project_export(project=project, fmt="labels-csv", labels="gold")
