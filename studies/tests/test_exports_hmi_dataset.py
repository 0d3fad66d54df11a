"""The HMI zip as a publishable dataset: Croissant, data package and card validate with their
reference libraries, agree with each other, and `datasets.load_dataset(folder)` gives the table."""

from __future__ import annotations

import io
import json
import zipfile
from fnmatch import fnmatch

import pytest
from django.urls import reverse

from core.tests import dataset_checks as checks
from studies.services.exports import export_write
from studies.services.results.compute import results_compute
from studies.tests.factories import simulated_study

pytestmark = [pytest.mark.django_db, pytest.mark.filterwarnings("ignore::DeprecationWarning")]

CITATION = "@article{chartom2025,\n  title = {CHARTOM},\n  year = {2025}\n}"


def _zip_bytes(study) -> bytes:
    buffer = io.BytesIO()
    export_write(study=study, slug="hmi-zip", out=buffer)
    return buffer.getvalue()


def _unzipped(study, folder):
    with zipfile.ZipFile(io.BytesIO(_zip_bytes(study))) as zf:
        zf.extractall(folder)
    return folder


def test_the_hmi_zip_is_a_dataset_every_reference_library_reads(researcher, tmp_path, monkeypatch):
    checks.offline(monkeypatch, tmp_path)
    study = simulated_study(researcher, participants=8, compute=False)
    study.license, study.citation = "ODC-By-1.0", CITATION
    study.save(update_fields=["license", "citation"])
    folder = _unzipped(study, tmp_path / "hmi")
    expected = {c["chart_id"]: c for c in results_compute(study, fit_models=False)["charts"]}

    records = checks.croissant_records(folder, "hmi")
    assert sorted(r["hmi/chart_id"].decode() for r in records) == sorted(expected)
    assert len(checks.croissant_records(folder, "chart_images_files")) == len(expected)

    report = checks.frictionless_report(folder)
    assert report.valid, report.flatten(["resource", "type", "note"])

    facts = checks.same_facts_everywhere(folder)
    assert facts["header"]["license"] == "odc-by"
    assert facts["package"]["licenses"][0]["name"] == "ODC-By-1.0"
    assert facts["croissant"]["citeAs"] == CITATION
    assert facts["counts"]["charts"] == 6 and facts["counts"]["participants_took_part"] == 8
    assert facts["croissant"]["rai:dataCollection"].startswith("A randomized within-subject")
    card = (folder / "README.md").read_text()
    assert "```bibtex\n@article{chartom2025" in card and "Wilson" in card

    rows = checks.load(folder, cache=tmp_path / "cache")
    assert rows.num_rows == 6 and rows.features["image"].__class__.__name__ == "Image"
    for row in rows:
        chart = expected[row["chart_id"]]
        assert row["n"] == chart["n"] and row["hmi"] == pytest.approx(chart["hmi"])
        assert row["image"].size[0] > 0


def test_an_unchanged_study_exports_to_the_same_bytes(researcher):
    study = simulated_study(researcher, participants=4, compute=False)
    first = _zip_bytes(study)
    assert _zip_bytes(study) == first
    names = zipfile.ZipFile(io.BytesIO(first)).namelist()
    assert names[-3:] == ["croissant.json", "datapackage.json", "README.md"]
    assert {"metadata.csv", "HMI.csv"} <= set(names)


def test_the_api_sets_the_license_and_citation_and_refuses_an_unknown_license(
    researcher, researcher_api
):
    study = simulated_study(researcher, participants=2, compute=False)
    url = f"/api/v1/studies/{study.slug}/"
    response = researcher_api.patch(
        url, {"license": "CC0-1.0", "citation": "Doe 2026"}, format="json"
    )
    assert response.status_code == 200, response.content
    assert (response.json()["license"], response.json()["citation"]) == ("CC0-1.0", "Doe 2026")
    refused = researcher_api.patch(url, {"license": "WTFPL"}, format="json")
    assert refused.status_code == 400 and "license" in refused.json()["errors"]
    study.refresh_from_db()
    assert study.license == "CC0-1.0"


METADATA = {"croissant.json", "datapackage.json", "README.md"}


def _downloaded(client, researcher, study, folder):
    """The zip as the results page's download link serves it, unzipped into ``folder``."""
    client.force_login(researcher)
    response = client.get(reverse("studies:results-download", args=[study.slug, "hmi-zip"]))
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    with zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content))) as zf:
        zf.extractall(folder)
        return set(zf.namelist())


def test_every_file_of_the_downloaded_zip_is_described_in_both_metadata_files(
    client, researcher, tmp_path, monkeypatch
):
    checks.offline(monkeypatch, tmp_path)
    study = simulated_study(researcher, participants=8, compute=False)
    folder = tmp_path / "hmi"
    members = _downloaded(client, researcher, study, folder) - METADATA
    assert {"log_odds_trials.csv", "log_odds_platform.csv", "replicate_glmer.R"} <= members

    package = json.loads((folder / "datapackage.json").read_text())
    resources = {r["path"]: r for r in package["resources"]}
    assert members == set(resources)
    assert all(r["description"] and r["hash"] for r in resources.values())
    script = resources["replicate_glmer.R"]
    assert script["type"] == "file" and "glmer" in script["description"]
    trials = resources["log_odds_trials.csv"]["schema"]["fields"]
    header = (folder / "log_odds_trials.csv").read_text().splitlines()[0].split(",")
    assert [f["name"] for f in trials] == header and all(f["description"] for f in trials)
    report = checks.frictionless_report(folder)
    assert report.valid, report.flatten(["resource", "type", "note"])

    croissant = json.loads((folder / "croissant.json").read_text())
    files = {d["contentUrl"] for d in croissant["distribution"] if "contentUrl" in d}
    globs = [d["includes"] for d in croissant["distribution"] if "includes" in d]
    assert all(m in files or any(fnmatch(m, g) for g in globs) for m in members)
    assert all(d["description"] for d in croissant["distribution"])
    platform = checks.croissant_records(folder, "log_odds_platform")
    assert {r["log_odds_platform/group"].decode() for r in platform} <= {"G1", "G2", "G3"}
    rows = checks.croissant_records(folder, "log_odds_trials")
    assert len(rows) == len((folder / "log_odds_trials.csv").read_text().splitlines()) - 1
    assert {r["log_odds_trials/error"] for r in rows} <= {0, 1}
    mind = checks.croissant_records(folder, "mind_questions_files")
    assert len(mind) == 6 and "predict" in mind[0]["mind_questions_files/text"].decode()
