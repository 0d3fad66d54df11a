"""Running the analysis as a job: on demand, or debounced after new responses."""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from core.models import Job
from core.services.jobs import job_create
from studies.models import ParticipantSession, Study, StudyResults

logger = logging.getLogger(__name__)

COMPUTE_JOB = "studies.results_compute"


def debounce_seconds() -> int:
    return int(getattr(settings, "CHARTROOM_RESULTS_DEBOUNCE_SECONDS", 180))


def auto_recompute_enabled() -> bool:
    """Recompute after responses only with a real worker: an eager "worker" would run the
    analysis inside the participant's request. CHARTROOM_RESULTS_AUTO_RECOMPUTE overrides."""
    configured = getattr(settings, "CHARTROOM_RESULTS_AUTO_RECOMPUTE", None)
    if configured is not None:
        return bool(configured)
    from config.celery import app

    return not app.conf.task_always_eager


def results_request_compute(*, study: Study, user=None) -> Job:
    """Queue a recompute now (the researcher pressed the button, or the API asked)."""
    return job_create(
        kind=COMPUTE_JOB, params={"study": study.pk}, subject=study.subject, user=user
    )


def results_schedule_recompute(*, study: Study | int) -> Job | None:
    """After a response: make sure one recompute is queued, a few minutes from now.

    At most one pending recompute per study: while one is still queued, later
    responses are covered by it and nothing new is queued. Called where a session
    completes, so a burst of finishing participants costs one analysis run.
    """
    from core.tasks import run_job  # the task module imports the job services

    study_id = study.pk if isinstance(study, Study) else study
    with transaction.atomic():
        results, _ = StudyResults.objects.get_or_create(study_id=study_id)
        results = (
            StudyResults.objects.select_for_update(of=("self",))
            .select_related("pending_job")
            .get(pk=results.pk)
        )
        pending = results.pending_job
        if pending is not None and pending.state == Job.State.QUEUED:
            return None
        job = Job.objects.create(
            kind=COMPUTE_JOB,
            params={"study": study_id, "scheduled": True},
            subject=Study.subject_of(study_id),
        )
        results.pending_job = job
        results.save(update_fields=["pending_job"])
        delay = debounce_seconds()
        transaction.on_commit(lambda: run_job.apply_async((job.pk,), countdown=delay))
    return job


def results_compute_job_run(*, job: Job, report) -> dict:
    study = Study.objects.filter(pk=job.params.get("study")).first()
    if study is None:
        return {"message": "The study no longer exists."}
    # Responses arriving from here on are not in this run, so they may schedule the next one.
    StudyResults.objects.filter(study=study, pending_job=job).update(pending_job=None)
    from studies.selectors.results import study_counted_response_count
    from studies.services.results.compute import results_compute, results_snapshot_save

    started = timezone.now()  # a decision made from here on is not in this run
    count = study_counted_response_count(study)
    report(0.1, "Applying exclusion rules and computing HMI")
    data = results_compute(study, report=report)
    report(0.9, "Saving results")
    results_snapshot_save(study=study, data=data, job=job, response_count=count, started_at=started)
    return {
        "responses": count,
        "included": data["funnel"]["included"],
        "charts": len(data["charts"]),
        "messages": data["messages"],
    }


def results_after_completion(session: ParticipantSession) -> None:
    """Hook for the participant flow: a real session just completed, so schedule a recompute.

    Runs after the answer's transaction commits and never lets a scheduling
    problem reach the participant, whose answer is already stored.
    """
    if session.is_test or not auto_recompute_enabled():
        return
    study_id = session.study_id

    def schedule():
        try:
            results_schedule_recompute(study=study_id)
        except Exception:
            logger.exception("Could not schedule the results recompute of study %s", study_id)

    transaction.on_commit(schedule)
