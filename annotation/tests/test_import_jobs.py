"""Large caption uploads are imported by a background job: page, API, problems, privacy."""

import json
import os
import time
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction

from annotation.models import ImportBatch, Item, ReferenceLabels
from annotation.services import captions_import, import_jobs, imports
from annotation.services.import_jobs import CAPTIONS_IMPORT_JOB, captions_import_enqueue
from annotation.tests.test_imports import as_json, png, record, zipped
from core.models import Job

pytestmark = pytest.mark.django_db

JOBS_URL = "/api/v1/jobs/"


def page_url(project, job=None):
    url = f"/annotation/projects/{project.slug}/import/"
    return f"{url}?job={job.pk}" if job else url


def api_url(project):
    return f"/api/v1/projects/{project.slug}/imports/"


def stored_uploads(settings) -> list[Path]:
    folder = Path(settings.PRIVATE_MEDIA_ROOT) / import_jobs.UPLOAD_DIR
    return sorted(folder.iterdir()) if folder.exists() else []


@pytest.fixture
def small_threshold(settings):
    """Every upload in these tests is "large": over 100 bytes."""
    settings.CHARTROOM_CAPTIONS_INLINE_BYTES = 100


@pytest.fixture
def signed_in(client, researcher):
    client.force_login(researcher)
    return client


def three_records() -> bytes:
    return as_json(record("a"), record("b", labels=None), record("c", model="matcha"))


# --- which path --------------------------------------------------------------------------------


def test_an_upload_up_to_the_threshold_still_imports_in_the_request(signed_in, project, settings):
    data = three_records()
    settings.CHARTROOM_CAPTIONS_INLINE_BYTES = len(data)
    response = signed_in.post(page_url(project), {"file": SimpleUploadedFile("c.json", data)})
    assert response.status_code == 302
    assert response["Location"] == f"/annotation/projects/{project.slug}/"
    assert Item.objects.filter(project=project).count() == 3
    assert not Job.objects.exists()


def test_the_threshold_counts_the_caption_file_and_the_images_together(
    signed_in, project, settings, django_capture_on_commit_callbacks
):
    data = as_json(record("a", image_path="a.png"))
    images = zipped({"a.png": png()})
    settings.CHARTROOM_CAPTIONS_INLINE_BYTES = len(data) + len(images) - 1
    with django_capture_on_commit_callbacks(execute=True):
        response = signed_in.post(
            page_url(project),
            {
                "file": SimpleUploadedFile("c.json", data),
                "images": SimpleUploadedFile("charts.zip", images),
            },
        )
    job = Job.objects.get(kind=CAPTIONS_IMPORT_JOB)
    assert response["Location"] == page_url(project, job)
    # The zip was read from private storage by the job and its chart stored publicly.
    assert Item.objects.get().image.name.startswith("annotation/charts/")
    assert job.result["ok"] is True


# --- the page ----------------------------------------------------------------------------------


def test_the_page_shows_the_queued_job_then_its_summary(
    signed_in, project, settings, small_threshold, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks() as callbacks:
        response = signed_in.post(
            page_url(project), {"file": SimpleUploadedFile("captions.json", three_records())}
        )
    job = Job.objects.get()
    assert response.status_code == 302 and response["Location"] == page_url(project, job)
    assert (job.kind, job.state, job.created_by.username) == (CAPTIONS_IMPORT_JOB, "queued", "rita")
    assert job.subject == project.subject
    assert len(stored_uploads(settings)) == 1
    assert not Item.objects.exists()

    queued = signed_in.get(response["Location"]).content.decode()
    assert f"Import #{job.pk}: captions.json" in queued
    assert '<span class="badge badge-queued" data-job-state>Queued' in queued
    assert f'data-status-url="/api/v1/jobs/{job.pk}/"' in queued
    assert "js/import_job.js" in queued
    # The import list shows the job while it runs.
    listed = signed_in.get(page_url(project)).content.decode()
    assert (
        f'href="/annotation/projects/{project.slug}/import/?job={job.pk}">captions.json' in listed
    )
    assert "Importing in the background" in listed

    for callback in callbacks:  # the commit: the job is dispatched and runs (eager in tests)
        callback()
    job.refresh_from_db()
    batch = ImportBatch.objects.get()
    assert job.state == Job.State.DONE
    assert job.result == {
        "ok": True,
        "batch": batch.pk,
        "records": 3,
        "created": 3,
        "duplicates": 0,
        "existing": 0,
        "seconds": job.result["seconds"],
        "summary": f"Imported 3 items from captions.json in {batch.seconds:.1f} s.",
    }
    assert (batch.state, batch.created_by.username, batch.created_items) == ("done", "rita", 3)
    assert stored_uploads(settings) == []
    done = signed_in.get(response["Location"])
    page = done.content.decode()
    assert done.status_code == 200
    assert "Imported 3 items from captions.json" in page
    assert "js/import_job.js" not in page  # finished: nothing left to follow
    assert "Importing in the background" not in signed_in.get(page_url(project)).content.decode()


def test_a_running_job_shows_its_stage_and_percentage(signed_in, researcher, project):
    job = Job.objects.create(
        kind=CAPTIONS_IMPORT_JOB,
        subject=project.subject,
        created_by=researcher,
        state=Job.State.RUNNING,
        progress=0.4,
        message="Writing rows: 40% (2 of 5 items)",
        params={"filename": "big.jsonl", "images_filename": "charts.zip"},
    )
    page = signed_in.get(page_url(project, job)).content.decode()
    assert f"Import #{job.pk}: big.jsonl + charts.zip" in page
    assert '<span class="badge badge-running" data-job-state>Running 40%' in page
    assert '<progress max="1" value="0.4"' in page
    assert "Writing rows: 40% (2 of 5 items)" in page
    assert '<meta http-equiv="refresh" content="2">' in page  # without JavaScript, too
    listed = signed_in.get(page_url(project)).content.decode()
    assert "Running 40%" in listed and "big.jsonl + charts.zip" in listed


def test_problems_found_by_the_job_are_shown_with_their_row_and_nothing_is_imported(
    signed_in, project, settings, small_threshold, django_capture_on_commit_callbacks
):
    bad = as_json(
        record("a"), record("b", labels=[["colour_error"], []]), record("c", sentences=[])
    )
    with django_capture_on_commit_callbacks(execute=True):
        response = signed_in.post(page_url(project), {"file": SimpleUploadedFile("c.json", bad)})
    job = Job.objects.get()
    batch = ImportBatch.objects.get()
    assert job.state == Job.State.DONE
    assert job.result["ok"] is False and job.result["batch"] == batch.pk
    assert batch.state == ImportBatch.State.REJECTED
    assert job.result["problem_count"] == 2
    assert [(p["file"], p["row"], p["id"], p["field"]) for p in job.result["problems"]] == [
        ("c.json", 2, "b", "labels"),
        ("c.json", 3, "c", "sentences"),
    ]
    assert not Item.objects.exists() and not ReferenceLabels.objects.exists()
    assert stored_uploads(settings) == []
    page = signed_in.get(response["Location"]).content.decode()
    assert '<span class="badge badge-failed" data-job-state>Rejected</span>' in page
    assert "Nothing was imported: 2 problems" in page
    assert "unknown category &#x27;colour_error&#x27;" in page


def test_a_broken_image_in_the_zip_is_a_problem_of_that_record(
    researcher_api, project, settings, small_threshold, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = researcher_api.post(
            api_url(project),
            {
                "file": SimpleUploadedFile(
                    "c.json", as_json(record("a", image_path="a.png"), record("b"))
                ),
                "images": SimpleUploadedFile("charts.zip", zipped({"a.png": png()[:60]})),
            },
            format="multipart",
        )
    assert response.status_code == 202
    problems = Job.objects.get().result["problems"]
    assert [(p["file"], p["row"], p["field"]) for p in problems] == [("c.json", 1, "image_path")]
    assert "is not a usable image" in problems[0]["reason"]
    assert not Item.objects.exists()
    assert stored_uploads(settings) == []


def test_a_job_that_crashes_still_deletes_the_upload_and_says_so(
    signed_in, project, settings, small_threshold, django_capture_on_commit_callbacks, monkeypatch
):
    def crash(**kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(import_jobs, "captions_import", crash)
    with django_capture_on_commit_callbacks(execute=True):
        response = signed_in.post(
            page_url(project), {"file": SimpleUploadedFile("c.json", three_records())}
        )
    job = Job.objects.get()
    assert job.state == Job.State.FAILED and job.error.startswith("RuntimeError: disk full. Run")
    assert stored_uploads(settings) == []
    page = signed_in.get(response["Location"]).content.decode()
    assert "The import stopped with an error; nothing was imported. RuntimeError: disk full" in page
    listed = signed_in.get(page_url(project)).content.decode()
    assert "Stopped with an error; nothing was imported." in listed


def test_a_project_deleted_before_the_job_runs_is_reported_and_the_upload_removed(
    researcher, project, settings, small_threshold, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks() as callbacks:
        job = captions_import_enqueue(
            project=project, user=researcher, upload=SimpleUploadedFile("c.json", three_records())
        )
    project.delete()
    for callback in callbacks:
        callback()
    job.refresh_from_db()
    assert job.state == Job.State.DONE
    assert job.result["ok"] is False and job.result["batch"] is None
    assert job.result["problems"][0]["reason"] == "the project was deleted before the import ran."
    assert stored_uploads(settings) == []


def test_an_upload_over_the_size_limit_is_refused_before_it_is_stored(
    signed_in, project, settings, small_threshold
):
    settings.CHARTROOM_MAX_UPLOAD_BYTES = 150
    response = signed_in.post(page_url(project), {"file": SimpleUploadedFile("c.json", b" " * 151)})
    assert response.status_code == 400
    assert "Uploads are limited to" in response.content.decode()
    assert not Job.objects.exists() and stored_uploads(settings) == []


# --- the API -----------------------------------------------------------------------------------


def test_the_api_answers_202_with_the_job_and_its_status_url(
    researcher_api, project, small_threshold, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = researcher_api.post(
            api_url(project),
            {"file": SimpleUploadedFile("c.jsonl", b"\n".join(json.dumps(r).encode() for r in (
                record("a"), record("b")
            ))), "format": "jsonl"},
            format="multipart",
        )  # fmt: skip
    assert response.status_code == 202, response.content
    body = response.json()
    job = Job.objects.get()
    assert body == {
        "job": job.pk,
        "state": "queued",
        "url": f"http://testserver{JOBS_URL}{job.pk}/",
    }
    polled = researcher_api.get(body["url"]).json()
    batch = ImportBatch.objects.get()
    assert (polled["state"], polled["progress"], polled["kind"]) == (
        "done",
        1.0,
        CAPTIONS_IMPORT_JOB,
    )
    assert polled["result"]["batch"] == batch.pk and polled["result"]["created"] == 2
    assert batch.format == "jsonl"
    listed = researcher_api.get(api_url(project)).json()["results"]
    assert [b["id"] for b in listed] == [batch.pk]


def test_the_api_reports_the_jobs_problems_through_the_job(
    researcher_api, project, small_threshold, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = researcher_api.post(
            api_url(project),
            {"file": SimpleUploadedFile("c.json", as_json(record("a", labels=[[]])))},
            format="multipart",
        )
    result = researcher_api.get(response.json()["url"]).json()["result"]
    assert result["ok"] is False and result["problem_count"] == 1
    assert result["problems"][0]["message"] == (
        "record 1 (a): labels: The caption has 2 sentences but 1 label list was given."
    )
    assert (result["problems"][0]["file"], result["problems"][0]["row"]) == ("c.json", 1)


def test_a_small_upload_over_the_api_is_still_201(researcher_api, project):
    response = researcher_api.post(
        api_url(project),
        {"file": SimpleUploadedFile("c.json", three_records())},
        format="multipart",
    )
    assert response.status_code == 201 and response.json()["created_items"] == 3
    assert not Job.objects.exists()


# --- privacy -----------------------------------------------------------------------------------


def test_researchers_never_see_each_others_import_jobs(
    client, researcher, other_researcher, project, api_client, small_threshold, settings
):
    project.collaborators.add(other_researcher)  # even in a project they share
    job = captions_import_enqueue(
        project=project,
        user=researcher,
        upload=SimpleUploadedFile("mine.json", three_records()),
    )
    client.force_login(other_researcher)
    assert client.get(page_url(project, job)).status_code == 404
    assert "mine.json" not in client.get(page_url(project)).content.decode()
    api_client.force_authenticate(other_researcher)
    assert api_client.get(f"{JOBS_URL}{job.pk}/").status_code == 404
    assert api_client.get(JOBS_URL).json()["results"] == []
    # The stored upload has a random name and is served by no URL.
    (stored,) = stored_uploads(settings)
    assert "mine" not in stored.name and len(stored.name.split("-")[0]) == 32


def test_a_job_id_that_is_not_an_import_of_this_project_is_404(
    signed_in, researcher, project, small_threshold
):
    from annotation.services import project_create

    elsewhere = project_create(owner=researcher, title="Another project")
    job = captions_import_enqueue(
        project=elsewhere, user=researcher, upload=SimpleUploadedFile("c.json", three_records())
    )
    assert signed_in.get(page_url(project, job)).status_code == 404
    assert signed_in.get(page_url(elsewhere, job)).status_code == 200
    assert signed_in.get(page_url(project) + "?job=abc").status_code == 404
    other_kind = Job.objects.create(kind="core.ping", created_by=researcher)
    assert signed_in.get(page_url(project) + f"?job={other_kind.pk}").status_code == 404


def test_annotators_cannot_upload(annotator_api, project, small_threshold, settings):
    response = annotator_api.post(
        api_url(project),
        {"file": SimpleUploadedFile("c.json", three_records())},
        format="multipart",
    )
    assert response.status_code == 403
    assert not Job.objects.exists() and stored_uploads(settings) == []


# --- progress ----------------------------------------------------------------------------------


def test_the_import_reports_each_stage_and_writes_rows_in_batches(project, monkeypatch):
    monkeypatch.setattr(imports, "WRITE_BATCH", 1)
    seen = []
    captions_import(
        project=project,
        data=as_json(record("a"), record("b", labels=None)),
        filename="c.json",
        progress=lambda fraction, message: seen.append((round(fraction, 4), message)),
    )
    # Two items and one set of reference labels: three rows, each a third of 0.45..1; an
    # item's labels are written with it.
    assert seen == [
        (0.0, "Checking the caption file"),
        (0.45, "Writing rows: 0% (0 of 2 items)"),
        (0.8167, "Writing rows: 67% (1 of 2 items)"),
        (1.0, "Writing rows: 100% (2 of 2 items)"),
    ]
    assert list(Item.objects.order_by("position").values_list("external_id", "position")) == [
        ("a", 1),
        ("b", 2),
    ]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_progress_is_visible_while_the_import_transaction_is_open(researcher):
    job = Job.objects.create(kind=CAPTIONS_IMPORT_JOB, created_by=researcher)
    progress = import_jobs._JobProgress(job, report=lambda *args: None)
    try:
        with pytest.raises(ZeroDivisionError), transaction.atomic():
            progress(0.5, "Writing rows: 50% (1 of 2 items)")
            1 / 0  # noqa: B018 - the import's transaction rolls back
    finally:
        progress.close()
    job.refresh_from_db()
    assert (job.progress, job.message) == (0.5, "Writing rows: 50% (1 of 2 items)")


# --- a real worker -----------------------------------------------------------------------------


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_imports_a_large_upload(
    celery_worker_process, researcher, project, settings, monkeypatch
):
    # The worker keeps its own settings: share its private folder for the upload.
    settings.PRIVATE_MEDIA_ROOT = Path(
        os.environ.get("PRIVATE_MEDIA_ROOT", settings.VAR_DIR / "private")
    )
    settings.CHARTROOM_CAPTIONS_INLINE_BYTES = 100

    def not_here(**kwargs):
        raise AssertionError("the import ran in the test process")

    monkeypatch.setattr(import_jobs, "captions_import", not_here)
    job = captions_import_enqueue(
        project=project, user=researcher, upload=SimpleUploadedFile("c.json", three_records())
    )
    stored = Path(settings.PRIVATE_MEDIA_ROOT) / job.params["upload"]
    assert stored.exists()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        job.refresh_from_db()
        if job.is_finished:
            break
        time.sleep(0.2)
    assert job.state == Job.State.DONE, job.error
    assert job.result["ok"] is True and job.result["created"] == 3
    assert ImportBatch.objects.get(pk=job.result["batch"]).created_items == 3
    assert Item.objects.filter(project=project).count() == 3
    assert not stored.exists()
