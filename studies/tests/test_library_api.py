"""The chart library over the REST API: import, browse, edit, images, generate, permissions."""

from __future__ import annotations

import base64
import io
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from core.models import AuditEntry, Job
from studies.models import Chart, ChartSet, Question
from studies.services.library import chartset_import
from studies.tests.test_library_helpers import (
    chartom_files,
    csv_text,
    fixture_specs,
    png_bytes,
    small_files,
    write_folder,
    zip_bytes,
)

pytestmark = pytest.mark.django_db

IMPORT_URL = "/api/v1/library/chart-sets/import/"
FIXTURE_SPECS = fixture_specs()


def upload(files, name="CHARTOM.zip", prefix=""):
    return SimpleUploadedFile(name, zip_bytes(files, prefix=prefix), content_type="application/zip")


@pytest.fixture
def small_set(tmp_path, researcher):
    return chartset_import(
        owner=researcher, source=write_folder(tmp_path / "s", small_files()), slug="small"
    ).chart_set


def set_url(slug, tail=""):
    return f"/api/v1/library/chart-sets/{slug}/{tail}"


# ------------------------------------------------------------------------------ import


def test_it_imports_a_56_pair_zip_and_reimports_it_in_place(researcher_api):
    response = researcher_api.post(
        IMPORT_URL, {"file": upload(chartom_files())}, format="multipart"
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["chart_set"], body["pairs"], body["charts"], len(body["created"])) == (
        "chartom",
        56,
        112,
        56,
    )
    again = researcher_api.post(IMPORT_URL, {"file": upload(chartom_files())}, format="multipart")
    assert again.status_code == 201
    assert len(again.json()["unchanged"]) == 56 and again.json()["created_set"] is False
    assert ChartSet.objects.count() == 1 and Chart.objects.count() == 112


def test_a_bad_upload_is_a_400_listing_every_problem_by_file(researcher_api, settings):
    files = small_files()
    files["chart_images/G7_Q1_1.png"] = b"not a png"
    files["FACT_answer_keys.csv"] = files["FACT_answer_keys.csv"].replace(
        b"G3_Q1_1,multiple choice,2", b"G3_Q1_1,multiple choice,7"
    )
    response = researcher_api.post(IMPORT_URL, {"file": upload(files)}, format="multipart")
    assert response.status_code == 400
    body = response.json()
    assert "nothing was imported" in body["detail"]
    assert any("not an image" in m for m in body["errors"]["chart_images/G7_Q1_1.png"])
    assert any(m.startswith("row 4: G3_Q1_1") for m in body["errors"]["FACT_answer_keys.csv"])
    assert not ChartSet.objects.exists()
    assert not (settings.MEDIA_ROOT / "charts").exists()


def test_a_zip_escaping_its_folder_is_a_400(researcher_api):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in small_files().items():
            zf.writestr(name, data)
        zf.writestr("../../evil.txt", b"x")
    response = researcher_api.post(
        IMPORT_URL, {"file": SimpleUploadedFile("x.zip", buffer.getvalue())}, format="multipart"
    )
    assert response.status_code == 400
    assert "outside the benchmark folder" in response.json()["errors"]["../../evil.txt"][0]


def test_an_upload_that_is_not_a_zip_is_a_400(researcher_api):
    response = researcher_api.post(
        IMPORT_URL, {"file": SimpleUploadedFile("x.zip", b"hello")}, format="multipart"
    )
    assert response.status_code == 400
    assert "not a .zip" in response.json()["errors"]["file"][0]
    assert researcher_api.post(IMPORT_URL, {}, format="multipart").status_code == 400


def test_a_manifest_with_its_images_imports(researcher_api):
    rows = [
        ["chart id", "chart type", "manipulation", "question", "answer type", "answer", "image"]
    ]
    rows += [
        [
            f"G1_Q1_{v}",
            "pie",
            "3D effect" if v == 2 else "none",
            "Rank the slices.",
            "rank",
            "B > A > C",
            f"{v}.png",
        ]
        for v in (1, 2)
    ]
    data = {
        "manifest": SimpleUploadedFile("manifest.csv", csv_text(rows).encode()),
        "images": [
            SimpleUploadedFile("some/dir/1.png", png_bytes((1, 0, 0))),
            SimpleUploadedFile("2.png", png_bytes((2, 0, 0))),
        ],
        "slug": "own-pies",
        "title": "Own pies",
    }
    response = researcher_api.post(IMPORT_URL, data, format="multipart")
    assert response.status_code == 201, response.json()
    question = Question.objects.get(chart_set__slug="own-pies")
    assert question.group.manipulation.slug == "pie_3d"
    assert question.key_value == ["B", "A", "C"]


def test_a_background_import_returns_the_job_and_its_result(
    researcher_api, django_capture_on_commit_callbacks, settings
):
    with django_capture_on_commit_callbacks(execute=True):
        response = researcher_api.post(
            IMPORT_URL,
            {"file": upload(small_files()), "background": "true", "slug": "bg"},
            format="multipart",
        )
    assert response.status_code == 202
    job = Job.objects.get(pk=response.json()["job"])
    assert job.state == Job.State.DONE and job.result["ok"] is True
    assert job.result["chart_set"] == "bg" and job.result["pairs"] == 3
    polled = researcher_api.get(response.json()["job_url"]).json()
    assert polled["state"] == "done"
    # The private copy of the upload is removed once imported.
    assert not any((settings.PRIVATE_MEDIA_ROOT / "imports").iterdir())


def test_a_large_upload_goes_to_a_job_that_reports_problems(
    researcher_api, django_capture_on_commit_callbacks, settings
):
    settings.CHARTROOM_IMPORT_SYNC_MAX_BYTES = 100
    files = {**small_files(), "chart_images/G7_Q1_1.png": b"garbage"}
    with django_capture_on_commit_callbacks(execute=True):
        response = researcher_api.post(IMPORT_URL, {"file": upload(files)}, format="multipart")
    assert response.status_code == 202
    job = Job.objects.get(pk=response.json()["job"])
    assert job.result["ok"] is False
    assert {k: job.result["problems"][0][k] for k in ("file", "row")} == {
        "file": "chart_images/G7_Q1_1.png",
        "row": None,
    }
    assert not ChartSet.objects.exists()


# ------------------------------------------------------------------------------ browsing


def test_it_lists_sets_groups_pairs_and_charts(researcher_api, small_set):
    sets = researcher_api.get("/api/v1/library/chart-sets/").json()
    assert [(s["slug"], s["group_count"], s["pair_count"]) for s in sets["results"]] == [
        ("small", 3, 3)
    ]
    groups = researcher_api.get(set_url("small", "groups/")).json()
    assert [(g["code"], g["manipulation"], g["pairs"]) for g in groups] == [
        ("G3", "inverted_y_axis", ["G3_Q1"]),
        ("G7", "truncated_y_axis", ["G7_Q1"]),
        ("G13", "pie_3d", ["G13_Q1"]),
    ]
    pairs = researcher_api.get(set_url("small", "pairs/")).json()["results"]
    assert [p["code"] for p in pairs] == ["G3_Q1", "G7_Q1", "G13_Q1"]
    assert [c["chart_id"] for c in pairs[0]["charts"]] == ["G3_Q1_1", "G3_Q1_2"]
    assert pairs[0]["charts"][1]["manipulation"] == "inverted_y_axis"
    assert pairs[0]["charts"][0]["image_url"].startswith("http://testserver/media/charts/")
    chart = researcher_api.get(set_url("small", "charts/G7_Q1_2/")).json()
    assert chart["width"] == 24


def test_another_researcher_gets_404_everywhere(other_researcher, small_set, api_client):
    api_client.force_authenticate(other_researcher)
    for url in (
        set_url("small"),
        set_url("small", "groups/"),
        set_url("small", "pairs/"),
        set_url("small", "pairs/G7_Q1/"),
        set_url("small", "charts/G7_Q1_1/"),
        set_url("small", "export/"),
    ):
        assert api_client.get(url).status_code == 404, url
    assert (
        api_client.patch(set_url("small", "pairs/G7_Q1/"), {"answer_key": "9"}).status_code == 404
    )
    image = SimpleUploadedFile("x.png", png_bytes())
    assert (
        api_client.put(
            set_url("small", "charts/G7_Q1_1/image/"), {"image": image}, format="multipart"
        ).status_code
        == 404
    )
    assert api_client.delete(set_url("small")).status_code == 404
    assert api_client.get("/api/v1/library/chart-sets/").json()["results"] == []
    assert Question.objects.get(code="G7_Q1").answer_key == "1.3"


def test_a_collaborator_sees_the_set_but_annotators_and_anonymous_users_do_not(
    other_researcher, small_set, api_client, annotator_api
):
    small_set.collaborators.add(other_researcher)
    api_client.force_authenticate(other_researcher)
    assert api_client.get(set_url("small", "pairs/")).status_code == 200
    assert annotator_api.get(set_url("small")).status_code == 403
    api_client.force_authenticate(None)
    assert api_client.get(set_url("small")).status_code in (401, 403)


# ------------------------------------------------------------------------------ editing


@pytest.mark.parametrize(
    "code, change, field, message",
    [
        ("G3_Q1", {"answer_key": "It doubled."}, "answer_key", "neither an option number"),
        ("G3_Q1", {"answer_key": "4"}, "answer_key", "neither an option number"),
        ("G7_Q1", {"answer_key": "about a lot"}, "answer_key", "not a single number"),
        ("G13_Q1", {"answer_key": "A"}, "answer_key", "has one item"),
        ("G13_Q1", {"answer_key": "A > B > A"}, "answer_key", "names an item twice"),
        ("G7_Q1", {"answer_type": "multiple_choice"}, "text", "lists its options"),
        ("G7_Q1", {"answer_type": "essay"}, "answer_type", "not a valid choice"),
        ("G7_Q1", {"tolerance": 1.5}, "tolerance", "from 0 to 0.99"),
        ("G7_Q1", {"text": "   "}, "text", ""),
    ],
)
def test_it_refuses_bad_keys_with_a_400(researcher_api, small_set, code, change, field, message):
    before = Question.objects.get(code=code).answer_key
    response = researcher_api.patch(set_url("small", f"pairs/{code}/"), change, format="json")
    assert response.status_code == 400, response.json()
    assert message in " ".join(response.json()["errors"][field])
    assert Question.objects.get(code=code).answer_key == before


def test_it_edits_a_question_and_its_key_and_records_the_change(
    researcher_api, small_set, researcher
):
    response = researcher_api.patch(
        set_url("small", "pairs/G3_Q1/"),
        {
            "answer_key": "It stayed the same.",
            "text": "Trend? 1. Up 2. Down 3. It stayed the same.",
        },
        format="json",
    )
    assert response.status_code == 200, response.json()
    body = response.json()
    assert (body["key_value"], body["options"]) == (2, ["Up", "Down", "It stayed the same."])
    assert body["stem"] == "Trend?"
    entry = AuditEntry.objects.get(action="library.question_edit")
    assert entry.actor == researcher and entry.details["before"]["answer_key"] == "2"


def test_it_replaces_an_image_and_rejects_non_images(researcher_api, small_set):
    url = set_url("small", "charts/G7_Q1_1/image/")
    new = png_bytes((5, 6, 7), size=(30, 20))
    response = researcher_api.put(
        url, {"image": SimpleUploadedFile("../../etc/passwd.png", new)}, format="multipart"
    )
    assert response.status_code == 200, response.json()
    chart = Chart.objects.get(chart_id="G7_Q1_1")
    assert (chart.width, chart.height, chart.original_name) == (30, 20, "passwd.png")
    assert "passwd" not in chart.image.name and chart.image.read() == new
    bad = researcher_api.put(
        url, {"image": SimpleUploadedFile("x.png", b"GIF89a-nope")}, format="multipart"
    )
    assert bad.status_code == 400 and "image" in bad.json()["errors"]
    assert Chart.objects.get(chart_id="G7_Q1_1").image_sha256 == chart.image_sha256


def test_it_deletes_a_pair(researcher_api, small_set):
    assert researcher_api.delete(set_url("small", "pairs/G13_Q1/")).status_code == 204
    assert not Question.objects.filter(code="G13_Q1").exists()


def test_the_export_imports_again_unchanged(researcher_api, small_set, researcher):
    response = researcher_api.get(set_url("small", "export/"))
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    result = chartset_import(
        owner=researcher, source=io.BytesIO(response.content), slug="small", source_name="x.zip"
    )
    assert len(result.summary["unchanged"]) == 3


# ------------------------------------------------------------------------------ generator


def test_it_previews_a_spec_without_saving(researcher_api):
    response = researcher_api.post(
        "/api/v1/library/generator/preview/", {"spec": FIXTURE_SPECS[0]}, format="json"
    )
    assert response.status_code == 200
    body = response.json()
    assert base64.b64decode(body["non_manipulated"]).startswith(b"\x89PNG")
    assert body["non_manipulated"] != body["manipulated"]
    assert not Chart.objects.exists()


def test_a_bad_spec_is_a_400_naming_its_field(researcher_api):
    spec = {**FIXTURE_SPECS[0], "manipulation": "rainbow_colors", "data": {"values": [1]}}
    response = researcher_api.post(
        "/api/v1/library/generator/preview/", {"spec": spec}, format="json"
    )
    assert response.status_code == 400
    errors = " ".join(response.json()["errors"]["spec"])
    assert "manipulation: unknown manipulation 'rainbow_colors'" in errors


def test_it_generates_specs_into_a_set(researcher_api):
    created = researcher_api.post(
        "/api/v1/library/chart-sets/", {"title": "Generated"}, format="json"
    )
    assert created.status_code == 201
    slug = created.json()["slug"]
    response = researcher_api.post(
        set_url(slug, "generate/"), {"specs": FIXTURE_SPECS[:3]}, format="json"
    )
    assert response.status_code == 201, response.json()
    assert response.json()["created"] == ["G1_Q1", "G2_Q1", "G3_Q1"]
    pair = researcher_api.get(set_url(slug, "pairs/G3_Q1/")).json()
    assert pair["answer_key"] == "2. It decreased." and pair["key_value"] == 1
    assert pair["spec"]["id"] == "G3_Q1"


def test_manipulation_types_are_listed_and_extensible(researcher_api):
    listed = researcher_api.get("/api/v1/library/manipulation-types/").json()
    assert {"truncated_y_axis", "pie_3d_popout", "none"} <= {m["slug"] for m in listed}
    response = researcher_api.post(
        "/api/v1/library/manipulation-types/",
        {"label": "Cherry-picked range", "vocabulary": ["cherry", "selected years"]},
        format="json",
    )
    assert response.status_code == 201 and response.json()["slug"] == "cherry_picked_range"
    again = researcher_api.post(
        "/api/v1/library/manipulation-types/", {"label": "Truncated y axis"}, format="json"
    )
    assert again.status_code == 400 and "exists already" in again.json()["errors"]["label"][0]


def test_api_urls_reverse_in_the_api_namespace():
    assert reverse("api:library-chartset-import") == IMPORT_URL
    assert reverse("api:library-pair-detail", args=["s", "G1_Q1"]) == set_url("s", "pairs/G1_Q1/")


def test_pairs_and_sets_used_by_a_study_cannot_be_deleted(researcher_api, small_set, researcher):
    from studies.models import Study, StudyPair

    study = Study.objects.create(owner=researcher, title="S", slug="s", chart_set=small_set)
    StudyPair.objects.create(study=study, question=Question.objects.get(code="G7_Q1"))
    pair = researcher_api.delete(set_url("small", "pairs/G7_Q1/"))
    assert pair.status_code == 400 and "used by a study" in pair.json()["detail"]
    whole = researcher_api.delete(set_url("small"))
    assert whole.status_code == 400 and "used by a study" in whole.json()["detail"]
    assert Chart.objects.filter(question__code="G7_Q1").count() == 2
