"""The stopping rule: after each completed session, stop admitting once the study is precise.

The statistics are :mod:`analysis.stopping`; who counts as included is the
analysis's own decision (:func:`study_exclusion`: the exclusion rules, then the
researcher's overrides), so the rule stops on the numbers the results report.
"""

from __future__ import annotations

import logging

from django.db import transaction
from django.utils import timezone

from analysis.stopping import precision_stop
from studies.models import ParticipantSession, StoppingRule, Study
from studies.selectors.stopping import study_precision
from studies.services.results.exclusion import study_exclusion

logger = logging.getLogger(__name__)


def stop_detail(reason: str, *, included: int, target: float, largest: float | None) -> str:
    widest = "none yet" if largest is None else f"±{largest:.3f}"
    if reason == "precision":
        return (
            f"Every chart's 95% interval reached ±{target:.2f} or narrower with {included} "
            f"included participants (widest {widest})."
        )
    return (
        f"The maximum of {included} included participants was reached before every interval "
        f"reached ±{target:.2f} (widest {widest})."
    )


def study_stop_check(*, study_id: int, now=None) -> bool:
    """Apply the study's stopping rule now; True when this call stopped the study.

    The study row is locked, so two sessions completing at once record one stop.
    Sessions already in progress are not touched: they finish and count.
    """
    now = now or timezone.now()
    with transaction.atomic():
        study = Study.objects.select_for_update().get(pk=study_id)
        if (
            study.stopping_rule == StoppingRule.OFF
            or study.stopped_at is not None
            or study.status != Study.Status.LIVE
        ):
            return False
        included = study_exclusion(study).included_ids
        precision = study_precision(study, included)
        reason = precision_stop(
            [c.n_wrong for c in precision.charts],
            [c.n for c in precision.charts],
            included=len(included),
            target=study.stopping_half_width,
            min_n=study.stopping_min_included,
            max_n=study.stopping_max_included,
        )
        if reason is None:
            return False
        study.stopped_at = now
        study.stopped_reason = reason
        study.stopped_detail = stop_detail(
            reason,
            included=len(included),
            target=study.stopping_half_width,
            largest=precision.largest_half_width,
        )
        study.save(update_fields=["stopped_at", "stopped_reason", "stopped_detail", "updated_at"])
    logger.info("Study %s stopped: %s", study_id, study.stopped_detail)
    return True


def stop_check_after_completion(session: ParticipantSession) -> None:
    """Hook for the participant flow: check the rule once the completing answer is committed.

    A problem here is logged and never reaches the participant, whose answer is stored.
    """
    study = session.study  # read with the session by the answer (SESSION_STUDY_FIELDS)
    if session.is_test or study.stopping_rule == StoppingRule.OFF or study.stopped_at:
        # Nothing to check, and no query: the check locks the study row, which a
        # classroom's sessions, all completing in the same second, would queue on. A rule
        # switched on meanwhile is applied at the next completion.
        return
    study_id = session.study_id

    def check():
        try:
            study_stop_check(study_id=study_id)
        except Exception:
            logger.exception("Could not check the stopping rule of study %s", study_id)

    transaction.on_commit(check)


def study_stop_clear(study: Study) -> None:
    """Forget a stop (the researcher changed the rule): the next completion decides again."""
    if study.stopped_at is None:
        return
    study.stopped_at, study.stopped_reason, study.stopped_detail = None, "", ""
    study.save(update_fields=["stopped_at", "stopped_reason", "stopped_detail", "updated_at"])
