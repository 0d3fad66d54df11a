"""The embedded default (no broker): a large caption upload is imported on a thread of the web
process, so the request answers at once and the page follows the job to its end."""

import threading
import time

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

import annotation.jobs_imports
from annotation.models import Item
from annotation.services.import_jobs import CAPTIONS_IMPORT_JOB
from annotation.tests.test_imports import as_json, record
from core.models import Job
from core.services.jobs import unless_locked

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_large_upload_answers_at_once_and_is_imported_on_a_job_thread(
    client, researcher, project, settings, monkeypatch
):
    settings.CHARTROOM_JOB_RUNNER = "local"
    settings.CHARTROOM_CAPTIONS_INLINE_BYTES = 100
    go_on = threading.Event()
    threads = []
    real_run = annotation.jobs_imports.captions_import_job_run

    def held_run(*, job, report):
        threads.append(threading.current_thread().name)
        assert go_on.wait(10), "the request never came back"
        return real_run(job=job, report=report)

    monkeypatch.setattr(annotation.jobs_imports, "captions_import_job_run", held_run)
    client.force_login(researcher)
    data = as_json(record("a"), record("b"), record("c"))
    try:
        response = client.post(
            f"/annotation/projects/{project.slug}/import/",
            {"file": SimpleUploadedFile("captions.json", data)},
        )
        # The request is back while the import still waits on its thread.
        job = Job.objects.get(kind=CAPTIONS_IMPORT_JOB)
        assert response.status_code == 302 and response["Location"].endswith(f"?job={job.pk}")
        assert job.state in (Job.State.QUEUED, Job.State.RUNNING)
        assert not Item.objects.filter(project=project).exists()
        page = client.get(response["Location"]).content.decode()
        assert "js/import_job.js" in page  # the page follows the job
    finally:
        go_on.set()
    deadline = time.monotonic() + 20
    while not job.is_finished and time.monotonic() < deadline:
        time.sleep(0.05)
        # The test database is SQLite's shared in-memory cache: a read here can meet the job
        # thread's write of the same table and is refused at once rather than waiting.
        unless_locked(job.refresh_from_db)
    assert job.state == Job.State.DONE and job.result["created"] == 3, job.error
    assert threads and threads[0].startswith("chartroom-job")
    assert unless_locked(Item.objects.filter(project=project).count) == 3
    page = unless_locked(lambda: client.get(response["Location"]).content.decode())
    assert "Imported 3 items from captions.json" in page
