"""Report jobs: asking for a report, coalescing requests, storing the snapshot.

A report is recomputed by a background job (kind ``annotation.report``) in three
cases: the researcher asks, a page finds the stored snapshot stale, or labels
arrive. Requests coalesce: while a job for the same report is still queued, it
will read every label there is when it starts, so a second one would only
repeat it. After submits, the job is dispatched with a delay when a broker is
configured, so a burst of submits costs one computation; with tasks running
in-process (the embedded default) submits schedule nothing and the report page
recomputes a stale report when it is opened, so annotators never wait for it.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from annotation.assignment.strategy import CONFIDENCE
from annotation.models import Project, ProjectReport
from annotation.selectors.agreement import report_fingerprint
from annotation.services.overlap import overlap_estimates_refresh
from annotation.services.reports.aggregate import LABEL_SOURCES
from annotation.services.reports.compute import ComputedReport, report_compute
from core.models import Job, User
from core.services.jobs import job_create

logger = logging.getLogger(__name__)

REPORT_JOB = "annotation.report"
# A queued job older than this is presumed lost (a broker that was down); ask again.
STUCK_AFTER = timedelta(minutes=10)


def _debounce_seconds() -> int:
    return int(getattr(settings, "CHARTROOM_REPORT_DEBOUNCE_SECONDS", 20))


def _params(project: Project, labels: str, include_excluded: bool) -> dict:
    return {"project": project.pk, "labels": labels, "include_excluded": bool(include_excluded)}


def _jobs(project: Project, labels: str, include_excluded: bool):
    return Job.objects.filter(
        kind=REPORT_JOB,
        subject=project.subject,
        params__labels=labels,
        params__include_excluded=bool(include_excluded),
    )


def report_latest(
    *, project: Project, labels: str = "annotators", include_excluded: bool = False
) -> ProjectReport | None:
    return ProjectReport.objects.filter(
        project=project, labels=labels, include_excluded=include_excluded
    ).first()


def report_last_job(
    *, project: Project, labels: str = "annotators", include_excluded: bool = False
) -> Job | None:
    return _jobs(project, labels, include_excluded).order_by("-created_at", "-pk").first()


def _tasks_in_process() -> bool:
    from core.tasks import run_job

    return bool(run_job.app.conf.task_always_eager)


def report_request(
    *,
    project: Project,
    labels: str = "annotators",
    include_excluded: bool = False,
    user: User | None = None,
    delay: int = 0,
    reason: str = "asked",
    fingerprint: str = "",
) -> Job:
    """A job that (re)computes the report; a still-queued one for the same report is reused."""
    if labels not in LABEL_SOURCES:
        raise ValueError(f"unknown label source {labels!r}")
    queued = (
        _jobs(project, labels, include_excluded)
        .filter(state=Job.State.QUEUED, created_at__gte=timezone.now() - STUCK_AFTER)
        .order_by("-created_at")
        .first()
    )
    if queued is not None:
        return queued
    params = {**_params(project, labels, include_excluded), "reason": reason}
    if fingerprint:
        params["fingerprint"] = fingerprint
    if delay <= 0 or _tasks_in_process():
        return job_create(kind=REPORT_JOB, params=params, subject=project.subject, user=user)
    from core.tasks import run_job

    job = Job.objects.create(
        kind=REPORT_JOB, params=params, subject=project.subject, created_by=user
    )

    def dispatch() -> None:
        run_job.apply_async((job.pk,), countdown=delay)

    transaction.on_commit(dispatch, robust=True)
    return job


def _after_labels(project_id: int) -> None:
    if _tasks_in_process():
        return
    project = Project.objects.filter(pk=project_id).first()
    if project is not None:
        report_request(project=project, delay=_debounce_seconds(), reason="labels arrived")


def report_labels_arrived(*, project_id: int) -> None:
    """Hook for the label submit service: schedule a recompute once the submit commits.

    ``robust``: a broker that cannot be reached must never turn an annotator's
    stored submit into an error; the report page recomputes a stale report anyway.
    """

    def schedule_report() -> None:
        _after_labels(project_id)

    transaction.on_commit(schedule_report, robust=True)


@transaction.atomic
def report_store(
    *,
    project: Project,
    computed: ComputedReport,
    labels: str,
    include_excluded: bool,
    job: Job | None = None,
) -> ProjectReport:
    """Keep ``computed`` as the project's snapshot unless a later-started computation already won."""
    current = (
        ProjectReport.objects.select_for_update()
        .filter(project=project, labels=labels, include_excluded=include_excluded)
        .first()
    )
    fields = {
        "job": job,
        "fingerprint": computed.fingerprint,
        "data": computed.data,
        "figure_svg": computed.figure_svg,
        "started_at": computed.started_at,
        "computed_at": timezone.now(),
        "seconds": computed.seconds,
    }
    if current is None:
        return ProjectReport.objects.create(
            project=project, labels=labels, include_excluded=include_excluded, **fields
        )
    if current.started_at > computed.started_at:
        return current
    for name, value in fields.items():
        setattr(current, name, value)
    current.save(update_fields=list(fields))
    return current


def report_job_run(*, job: Job, report) -> dict:
    """The job handler's work: compute the report named in ``job.params`` and store it."""
    params = job.params or {}
    project = Project.objects.get(pk=params["project"])
    labels = params.get("labels", "annotators")
    include_excluded = bool(params.get("include_excluded", False))
    computed = report_compute(
        project=project, labels=labels, include_excluded=include_excluded, progress=report
    )
    stored = report_store(
        project=project,
        computed=computed,
        labels=labels,
        include_excluded=include_excluded,
        job=job,
    )
    overlap = project.overlap()
    if labels == "annotators" and overlap.adaptive and overlap.rule == CONFIDENCE:
        # The adaptive queue's confidence rule scores new label sets with these rates.
        overlap_estimates_refresh(project)
    return {
        "report": stored.pk,
        "seconds": round(computed.seconds, 3),
        "fingerprint": computed.fingerprint,
    }


def report_refresh(
    *,
    project: Project,
    labels: str = "annotators",
    include_excluded: bool = False,
    user: User | None = None,
):
    """The snapshot to show, whether it is stale, and the job bringing it up to date.

    Starts a job when the snapshot is missing or stale and none is under way, except
    after a job that failed on exactly these labels (the page offers to try again
    instead of failing on every view).
    """
    fingerprint = report_fingerprint(project, labels=labels, include_excluded=include_excluded)
    snapshot = report_latest(project=project, labels=labels, include_excluded=include_excluded)
    job = report_last_job(project=project, labels=labels, include_excluded=include_excluded)
    if snapshot is not None and snapshot.fingerprint == fingerprint:
        return snapshot, job, False
    busy = job is not None and job.state in (Job.State.QUEUED, Job.State.RUNNING)
    failed_here = (
        job is not None
        and job.state == Job.State.FAILED
        and (job.params or {}).get("fingerprint") == fingerprint
    )
    if not busy and not failed_here:
        job = report_request(
            project=project,
            labels=labels,
            include_excluded=include_excluded,
            user=user,
            reason="stale",
            fingerprint=fingerprint,
        )
        job.refresh_from_db()
        snapshot = report_latest(project=project, labels=labels, include_excluded=include_excluded)
    stale = snapshot is None or snapshot.fingerprint != fingerprint
    return snapshot, job, stale
