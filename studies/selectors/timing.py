"""How long a study takes, and the one way participant pages say it."""

from __future__ import annotations

import statistics

from django.utils import timezone
from django.utils.translation import ngettext

from studies.models import ParticipantSession, Study

Status = ParticipantSession.Status


def study_expected_minutes(study: Study) -> int | None:
    """What the study usually takes: the researcher's figure, else the median of the
    completed pilot sessions (consent to last answer), else None."""
    if study.expected_minutes:
        return study.expected_minutes
    spans = [
        (done - consented).total_seconds()
        for consented, done in ParticipantSession.objects.filter(
            study=study,
            is_pilot=True,
            status=Status.COMPLETED,
            consented_at__isnull=False,
            completed_at__isnull=False,
        ).values_list("consented_at", "completed_at")
    ]
    if not spans:
        return None
    return max(1, round(statistics.median(spans) / 60))


def time_statement(*, expected: int | None, limit: int) -> str:
    """The one way every participant page states time: what it usually takes, and the limit.

    "It usually takes about 15 minutes; you have up to 60." An expected duration at or
    above the limit is not stated, since it would promise more time than there is.
    """
    if expected and expected < limit:
        return ngettext(
            "It usually takes about %(expected)d minute; you have up to %(limit)d.",
            "It usually takes about %(expected)d minutes; you have up to %(limit)d.",
            expected,
        ) % {"expected": expected, "limit": limit}
    return ngettext(
        "You have up to %(limit)d minute.", "You have up to %(limit)d minutes.", limit
    ) % {"limit": limit}


def time_left_statement(*, minutes_left: int, limit: int) -> str:
    """The trial page's clock, in the same terms: "52 of your 60 minutes left"."""
    return ngettext(
        "%(left)d of your %(limit)d minutes left", "%(left)d of your %(limit)d minutes left", limit
    ) % {"left": minutes_left, "limit": limit}


def session_time_left(session: ParticipantSession, *, now=None) -> str:
    """The trial page's clock for ``session`` ("" without a deadline)."""
    if not session.deadline:
        return ""
    remaining = max(0, int((session.deadline - (now or timezone.now())).total_seconds() // 60))
    return time_left_statement(minutes_left=remaining, limit=session.study.time_limit_minutes)
