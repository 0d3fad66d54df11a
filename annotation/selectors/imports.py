"""What a researcher reads about their caption imports that run as background jobs.

Jobs are private to the researcher who started them, even in a project shared with
others: each sees only their own uploads and how they went.
"""

from __future__ import annotations

from annotation.caption_formats import Problem
from annotation.models import ImportBatch, Project
from core.models import Job, User

# The kind of the background job that imports captions, under which it is registered and listed.
CAPTIONS_IMPORT_JOB = "annotation.captions_import"


def caption_import_jobs(*, project: Project, user: User):
    """The researcher's caption import jobs into ``project``, newest first."""
    return Job.objects.filter(
        kind=CAPTIONS_IMPORT_JOB, subject=project.subject, created_by=user
    ).order_by("-created_at", "-pk")


def caption_import_jobs_pending(*, project: Project, user: User, limit: int = 10) -> list[Job]:
    """Jobs the import list shows beside the imports: running ones and any that crashed.

    A finished job's import, accepted or rejected, is in the list as an ImportBatch.
    """
    return list(
        caption_import_jobs(project=project, user=user).filter(
            state__in=(Job.State.QUEUED, Job.State.RUNNING, Job.State.FAILED)
        )[:limit]
    )


def caption_import_job(*, project: Project, user: User, job_id) -> Job | None:
    try:
        job_id = int(job_id)
    except (TypeError, ValueError):
        return None
    return caption_import_jobs(project=project, user=user).filter(pk=job_id).first()


def job_problems(job: Job) -> list[Problem]:
    """The problems a finished job found, shaped like those of an import in the request."""
    return [
        Problem(p.get("row"), p.get("id", ""), p.get("field", ""), p.get("reason", ""))
        for p in (job.result or {}).get("problems", [])
    ]


def import_batch(*, project: Project, pk: int) -> ImportBatch | None:
    """One import of ``project``, accepted or rejected, with every problem it reported.

    Unlike the jobs above, an import is the project's record: every researcher who may see
    the project may read it (the history lists them all).
    """
    return ImportBatch.objects.filter(project=project, pk=pk).select_related("created_by").first()
