"""An import whose worker stopped: the page and the API say so, and what to do."""

from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.services.import_jobs import CAPTIONS_IMPORT_JOB
from core.models import Job
from core.services.jobs import MAX_ATTEMPTS, jobs_sweep_stale

pytestmark = pytest.mark.django_db


def stale_import(project, researcher, attempts):
    long_ago = timezone.now() - timedelta(hours=1)
    return Job.objects.create(
        kind=CAPTIONS_IMPORT_JOB, state=Job.State.RUNNING, progress=0.6, attempts=attempts,
        started_at=long_ago, heartbeat_at=long_ago, created_by=researcher,
        subject=project.subject, params={"filename": "big.jsonl", "project": project.pk},
    )  # fmt: skip


def test_an_import_whose_worker_stopped_is_queued_again_and_the_page_says_why(
    client, researcher, project, django_capture_on_commit_callbacks
):
    job = stale_import(project, researcher, attempts=1)
    with django_capture_on_commit_callbacks(execute=False):
        assert jobs_sweep_stale().requeued == [job.pk]
    client.force_login(researcher)
    page = client.get(f"/annotation/projects/{project.slug}/import/?job={job.pk}").content.decode()
    assert '<span class="badge badge-queued" data-job-state>Queued' in page
    assert f"The worker stopped; running it again (attempt 2 of {MAX_ATTEMPTS})" in page


def test_an_import_that_lost_its_worker_every_time_fails_and_the_page_and_api_say_so(
    client, researcher, researcher_api, project
):
    job = stale_import(project, researcher, attempts=MAX_ATTEMPTS)
    assert jobs_sweep_stale().failed == [job.pk]
    client.force_login(researcher)
    page = client.get(f"/annotation/projects/{project.slug}/import/?job={job.pk}").content.decode()
    assert '<span class="badge badge-failed" data-job-state>Failed' in page
    assert f"The worker stopped during each of the {MAX_ATTEMPTS} runs of this job" in page
    body = researcher_api.get(f"/api/v1/jobs/{job.pk}/").json()
    assert body["state"] == "failed" and body["attempts"] == MAX_ATTEMPTS
    assert body["message"] == "The worker stopped; run it again"
    assert body["error"].endswith("Check the worker's log, then run it again.")
    assert body["finished_at"] and body["heartbeat_at"]
