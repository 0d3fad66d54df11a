"""The caption dataset zip: CHOCOLATE JSON, sentences and raw labels with Croissant, a data
package and a card that validate, agree, and load with `datasets` in one line."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from annotation.services import project_update
from annotation.services.exports import project_export
from annotation.tests.factories import submit
from core.tests import dataset_checks as checks

pytestmark = [pytest.mark.django_db, pytest.mark.filterwarnings("ignore::DeprecationWarning")]


def _labelled(project, make_items, members):
    a, b, c = members(3)
    first, second = make_items(project, 2)
    for annotator, labels in (
        (a, [["value_error", "label_error"], []]),
        (b, [["value_error"], ["grammatical_error"]]),
        (c, [["label_error"], ["grammatical_error"]]),
    ):
        submit(project, first, annotator, labels)
    submit(project, second, a, [[], ["trend_error"]])
    return first, second


def _zip_bytes(project) -> bytes:
    return b"".join(project_export(project=project, fmt="dataset-zip").byte_chunks())


def test_the_dataset_zip_validates_agrees_and_loads(
    project, make_items, members, tmp_path, monkeypatch
):
    checks.offline(monkeypatch, tmp_path)
    first, second = _labelled(project, make_items, members)
    project_update(project=project, license="CC0-1.0", citation="Doe et al. Captions. 2026.")
    folder = tmp_path / "captions"
    zipfile.ZipFile(io.BytesIO(_zip_bytes(project))).extractall(folder)

    records = checks.croissant_records(folder, "sentences")
    assert [(r["sentences/caption_id"], r["sentences/sentence_index"]) for r in records] == [
        (first.external_id.encode(), 0), (first.external_id.encode(), 1),
        (second.external_id.encode(), 0), (second.external_id.encode(), 1),
    ]  # fmt: skip
    assert len(checks.croissant_records(folder, "raw_labels")) == 4 * 2 * 7
    report = checks.frictionless_report(folder)
    assert report.valid, report.flatten(["resource", "type", "note"])

    facts = checks.same_facts_everywhere(folder)
    assert facts["header"]["license"] == "cc0-1.0"
    assert facts["counts"]["captions"] == 2 and facts["counts"]["sentences"] == 4
    assert facts["counts"]["annotators"] == 3 and facts["counts"]["label_sets"] == 4
    croissant = facts["croissant"]
    assert "3 different annotators" in croissant["rai:dataAnnotationProtocol"]
    assert "0.50 USD per caption" in croissant["rai:annotatorDemographics"]
    assert "pseudonymous" in croissant["rai:personalSensitiveInformation"]
    # What the card says of control items is what the files hold (raw labels keep them, marked).
    assert "marked excluded_because = control" in croissant["rai:dataCollection"]

    sentences = checks.load(folder, cache=tmp_path / "cache")
    assert sentences.num_rows == 4
    assert sentences[0]["labels"] == ["value_error", "label_error"]
    assert sentences[0]["value_error"] is True and sentences[0]["factual"] is False
    assert sentences[1]["grammatical_error"] and sentences[1]["factual"]
    captions = checks.load(folder, "captions", cache=tmp_path / "cache-captions")
    assert captions.num_rows == 2 and captions[1]["labels"] == [[], ["trend_error"]]
    raw = checks.load(folder, "raw_labels", cache=tmp_path / "cache-raw")
    assert raw.num_rows == 56 and set(raw["annotator"]) == {"A01", "A02", "A03"}


def test_an_unchanged_project_exports_the_same_bytes_and_the_command_writes_it(
    project, make_items, members, tmp_path
):
    _labelled(project, make_items, members)
    first = _zip_bytes(project)
    assert _zip_bytes(project) == first
    names = zipfile.ZipFile(io.BytesIO(first)).namelist()
    assert names == [
        "sentences.csv", "sentences.jsonl", "chocolate.json", "labels.csv", "labels.jsonl",
        "croissant.json", "datapackage.json", "README.md",
    ]  # fmt: skip
    out = tmp_path / "d.zip"
    call_command(
        "export_annotations", project.slug, "--format", "dataset-zip", "--output", str(out)
    )
    assert out.read_bytes() == first
    with pytest.raises(CommandError, match="--output"):
        call_command("export_annotations", project.slug, "--format", "dataset-zip")


def test_the_api_and_the_report_page_serve_the_zip(project, make_items, members, client_for):
    _labelled(project, make_items, members)
    client = client_for(project.owner)
    response = client.get(f"/api/v1/projects/{project.slug}/exports/dataset-zip/")
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    body = b"".join(response.streaming_content)
    card = zipfile.ZipFile(io.BytesIO(body)).read("README.md").decode()
    assert "license: cc-by-4.0" in card
    browser = Client()
    browser.force_login(project.owner)
    page = browser.get(f"/annotation/projects/{project.slug}/report/")
    assert b"/export/dataset-zip/" in page.content
    assert json.loads(zipfile.ZipFile(io.BytesIO(body)).read("chocolate.json"))[0]["labels"]


def test_the_project_api_sets_the_license_and_refuses_an_unknown_one(project, client_for):
    client = client_for(project.owner)
    url = f"/api/v1/projects/{project.slug}/"
    assert client.get(url).json()["license"] == "CC-BY-4.0"
    response = client.patch(url, {"license": "ODbL-1.0", "citation": "@misc{x}"}, format="json")
    assert response.status_code == 200 and response.json()["license"] == "ODbL-1.0"
    assert client.patch(url, {"license": "nope"}, format="json").status_code == 400
