"""How long a study takes, and the one way participant pages say it."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

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


# The trial page's clock, in its three wordings. Each is written with its plural forms
# for the page's script too (time_left_texts), which keeps the clock going between
# answers by the same rule as time_left_statement. One wording is translated at a time:
# the clock goes out with every answer, and each ngettext costs about 0.5% of a web
# worker's time in a classroom's burst (py-spy, 4 December).
_WORDINGS = ("second", "minute", "about")


def _left_text(wording: str, count: int) -> str:
    if wording == "second":
        return ngettext("%(seconds)d second left", "%(seconds)d seconds left", count)
    if wording == "minute":
        return ngettext("%(left)d minute left", "%(left)d minutes left", count)
    # The noun counts the limit ("10 minutes"), so the form follows the limit.
    return ngettext(
        "About %(left)d of your %(limit)d minute left",
        "About %(left)d of your %(limit)d minutes left",
        count,
    )


def _left_texts(count: int) -> dict[str, str]:
    return {wording: _left_text(wording, count) for wording in _WORDINGS}


def time_left_statement(*, seconds_left: int, limit: int) -> str:
    """The trial page's clock: "About 52 of your 60 minutes left", "1 minute left".

    Minutes are rounded up, so the clock never says 0 while time remains; under a
    minute it counts seconds. At the start (all the minutes left) and in the last
    minute the limit is not repeated.
    """
    seconds_left = max(0, int(seconds_left))
    if seconds_left < 60:
        return _left_text("second", seconds_left) % {"seconds": seconds_left}
    left = math.ceil(seconds_left / 60)
    if left == 1 or left >= limit:
        return _left_text("minute", left) % {"left": left}
    return _left_text("about", limit) % {"left": left, "limit": limit}


def time_left_texts() -> dict[str, list[str]]:
    """Each wording of the clock in its singular and plural form, for static/js/clock.js.

    The languages the pages speak (English, German, Spanish) have one singular and one
    plural form, which the script picks with Intl.PluralRules ("one", else "other").
    """
    one, other = _left_texts(1), _left_texts(2)
    return {name: [one[name], other[name]] for name in one}


@dataclass(frozen=True)
class Clock:
    """A session's time left: the words, and the figures the page's script counts down."""

    text: str
    seconds_left: int
    limit: int


def session_seconds_left(session: ParticipantSession, *, now=None) -> int | None:
    """Whole seconds until ``session``'s deadline, rounded up so that a session with time
    left never reads 0 (None without a deadline). The page's clock and the JSON flow's
    ``seconds_left`` both read it, so they never differ by the rounding."""
    if not session.deadline:
        return None
    return max(0, math.ceil((session.deadline - (now or timezone.now())).total_seconds()))


def session_clock(session: ParticipantSession, *, now=None) -> Clock | None:
    """The trial page's clock for ``session`` (None without a deadline)."""
    seconds_left = session_seconds_left(session, now=now)
    if seconds_left is None:
        return None
    limit = session.study.time_limit_minutes
    return Clock(time_left_statement(seconds_left=seconds_left, limit=limit), seconds_left, limit)
