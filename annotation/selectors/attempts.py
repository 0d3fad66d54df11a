"""Reads about qualification attempts: how many are allowed, when the next one opens,
which items an attempt asks, and whether its gold may be shown.

The services that start and score attempts call these too, so a page, the API and
the service that enforces a rule always agree on it.
"""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone
from django.utils.translation import gettext_lazy

from annotation.models import GoldItem, Qualification, QualificationRound, RoundAttempt
from annotation.round_draws import fresh_left, per_attempt_size, review_open

State, Work = Qualification.State, Qualification.Work

# Every standing an annotator can have in a project, as an API key and a label.
STANDING_LABELS = {
    "invited": "Not started",
    "started": "Taking the rounds",
    "failed": "Failed a round, may try again",
    "qualified": "Qualified",
    "eliminated": "Not qualified",
    # Only the control items pause anyone (annotation.services.quality.controls).
    "paused": "Paused: control score below the threshold",
    "blocked": "Blocked by the researcher",
}

NOT_SHOWN = gettext_lazy("This project does not show the researchers' labels after a round.")
NOT_FINISHED = gettext_lazy("Finish the round first; its labels are shown afterwards.")
HIDDEN_FOR_RETRY = gettext_lazy(
    "The researchers' labels for this round are shown once you pass it or have no attempt "
    "left, so that your next attempt stays a fair test."
)


def round_limit(round_: QualificationRound, policy) -> int:
    """Attempts everyone has at ``round_``: its own limit, else the project's."""
    return round_.max_attempts or policy.max_attempts


def attempts_allowed(
    qualification: Qualification | None, round_: QualificationRound, policy
) -> int:
    """The round's limit plus the attempts a researcher allowed this annotator on it."""
    extra = (qualification.extra_attempts or {}).get(str(round_.pk), 0) if qualification else 0
    return round_limit(round_, policy) + int(extra)


def round_attempts(qualification: Qualification | None, round_: QualificationRound) -> list:
    """The annotator's attempts at ``round_`` in order (uses prefetched attempts if there)."""
    if qualification is None:
        return []
    found = [a for a in qualification.attempts.all() if a.round_id == round_.pk]
    return sorted(found, key=lambda a: a.number)


def retry_at(qualification, round_, policy, *, attempts=None) -> tuple:
    """(attempts used, when the next attempt may start, or None if no attempt is left)."""
    attempts = round_attempts(qualification, round_) if attempts is None else attempts
    used = len(attempts)
    if used >= attempts_allowed(qualification, round_, policy):
        return used, None
    last = max((a.finished_at for a in attempts if a.finished_at), default=None)
    if last is None:
        return used, timezone.now() - timedelta(seconds=1)
    opens = last + timedelta(minutes=policy.retry_delay_minutes)
    # On the minute: pages state the time as HH:MM, so an attempt that opened at 15:54:40
    # was announced as "15:54" and refused until then. Rounded up, the stated minute is
    # when it opens, for the pages, the API and the check that starts an attempt alike.
    # Without a delay the pages say "straight away", and so it is.
    if policy.retry_delay_minutes and (opens.second or opens.microsecond):
        opens = opens.replace(second=0, microsecond=0) + timedelta(minutes=1)
    return used, opens


def round_pool(round_: QualificationRound) -> list[int]:
    """The round's gold item ids in item order: the pool attempts draw from."""
    return list(round_.gold_items.order_by("item__position", "pk").values_list("pk", flat=True))


def round_size(round_: QualificationRound, pool: list[int] | None = None) -> int:
    """Captions one attempt at ``round_`` asks."""
    pool = round_pool(round_) if pool is None else pool
    return per_attempt_size(len(pool), round_.items_per_attempt)


def attempt_gold(attempt: RoundAttempt) -> list[GoldItem]:
    """The gold items ``attempt`` asks, in the order it asks them."""
    ids = list(attempt.gold_ids) or round_pool(attempt.round)
    found = {g.pk: g for g in GoldItem.objects.filter(pk__in=ids).select_related("item")}
    return [found[pk] for pk in ids if pk in found]


def review_state(*, policy, qualification, round_, attempt) -> tuple[bool, str]:
    """(may the annotator see the gold of ``attempt``, the reason if not)."""
    if not policy.show_gold_after_round:
        return False, NOT_SHOWN
    if attempt is None or attempt.finished_at is None:
        return False, NOT_FINISHED
    attempts = round_attempts(qualification, round_)
    pool = round_pool(round_)
    left = max(0, attempts_allowed(qualification, round_, policy) - len(attempts))
    if qualification.state == State.ELIMINATED:
        left = 0
    in_progress = next((a for a in attempts if a.finished_at is None), None)
    repeats = None
    if in_progress is not None:
        earlier = {pk for a in attempts if a.finished_at for pk in a.gold_ids}
        repeats = bool(earlier & set(in_progress.gold_ids))
    opened = review_open(
        show_gold=True,
        passed=attempt.passed,
        attempts_left=left,
        fresh=fresh_left(pool, [a.gold_ids for a in attempts]),
        per_attempt=round_size(round_, pool),
        retry_repeats=repeats,
    )
    return opened, ("" if opened else HIDDEN_FOR_RETRY)


def standing_key(qualification: Qualification | None, rounds: list, policy) -> str:
    """One annotator's standing (a key of STANDING_LABELS); ``rounds`` are the project's."""
    if qualification is None:
        return "invited" if rounds else "qualified"
    if qualification.work_state == Work.BLOCKED:
        return "blocked"
    if qualification.work_state == Work.PAUSED:
        return "paused"
    if qualification.state == State.ELIMINATED:
        return "eliminated"
    if qualification.state == State.QUALIFIED or not rounds:
        return "qualified"
    current = next((r for r in rounds if r.position == qualification.rounds_passed + 1), None)
    attempts = round_attempts(qualification, current) if current else []
    if attempts and attempts[-1].passed is False:
        return "failed"
    if attempts or qualification.rounds_passed:
        return "started"
    return "invited"
