"""Qualification rounds: taken in order, scored against gold, retried only when allowed.

Each attempt asks items drawn from the round's gold pool (annotation.round_draws):
unseen items first, so a retry asks different captions when the pool is big enough.
"""

from __future__ import annotations

import math
import random

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from annotation.models import GoldItem, Project, Qualification, QualificationRound, RoundAttempt
from annotation.round_draws import draw_items
from annotation.selectors.attempts import (
    attempt_gold,
    attempts_allowed,
    retry_at,
    review_state,
    round_pool,
    round_size,
)
from annotation.services.quality.common import (
    QualityError,
    policy_for,
    qualification_for,
    round_locked,
)
from annotation.services.quality.round_edits import (
    check_round_limit,
    check_round_settings,
    rounds_locked,
)
from annotation.services.quality.scoring import score_many
from core.services.audit import audit_record

State = Qualification.State
# SystemRandom: which items a retry asks cannot be worked out from earlier draws.
_rng: random.Random = random.SystemRandom()


def round_create(*, project: Project, title: str, gold_items, rule: str = "f1",
                 pass_mark: float = 0.6, items_per_attempt: int | None = None,
                 max_attempts: int | None = None, actor=None) -> QualificationRound:  # fmt: skip
    """Add a round at the end; ``items_per_attempt`` below the pool size lets retries differ."""
    gold_items = list(gold_items)
    check_round_settings(project=project, gold_items=gold_items, rule=rule, pass_mark=pass_mark)
    check_round_limit(max_attempts)
    if items_per_attempt is not None and not 1 <= items_per_attempt <= len(gold_items):
        raise QualityError(
            f"Captions per attempt is between 1 and the round's {len(gold_items)} gold items.",
            status=400, code="invalid",
        )  # fmt: skip
    with transaction.atomic():
        rounds = rounds_locked(project)
        created = QualificationRound.objects.create(
            project=project,
            position=(rounds[-1].position if rounds else 0) + 1,
            title=title,
            rule=rule,
            pass_mark=pass_mark,
            items_per_attempt=items_per_attempt,
            max_attempts=max_attempts,
        )
        created.gold_items.set(gold_items)
        audit_record(actor=actor, action="annotation.round_create", subject=project.subject,
                     details={"position": created.position, "title": title,
                              "items_per_attempt": items_per_attempt})  # fmt: skip
    return created


def _locked_qualification(project, annotator) -> Qualification:
    qualification_for(project=project, annotator=annotator)
    return Qualification.objects.select_for_update().get(project=project, annotator=annotator)


def attempt_start(*, project: Project, annotator, position: int, now=None) -> RoundAttempt:
    """Start (or resume) the annotator's attempt at round ``position``."""
    now = now or timezone.now()
    policy = policy_for(project)
    with transaction.atomic():
        # The round before the qualification: round_edits locks in that order too.
        round_ = round_locked(project, position)
        qualification = _locked_qualification(project, annotator)
        if round_ is None:
            raise QualityError(_("No such round."), status=404, code="not_found")
        if qualification.state == State.ELIMINATED:
            raise QualityError(
                _("You did not qualify for this project, so its rounds are closed to you."),
                status=403, code="eliminated",
            )  # fmt: skip
        if position <= qualification.rounds_passed:
            raise QualityError(_("You already passed this round."), status=409, code="passed")
        if position != qualification.rounds_passed + 1:
            raise QualityError(
                _("Take round %(position)d first; rounds go in order.")
                % {"position": qualification.rounds_passed + 1},
                status=409, code="out_of_order",
            )  # fmt: skip
        attempts = list(qualification.attempts.filter(round=round_).order_by("number"))
        unfinished = next((a for a in attempts if a.finished_at is None), None)
        if unfinished is not None:
            return unfinished
        used, allowed_at = retry_at(qualification, round_, policy, attempts=attempts)
        if allowed_at is None:
            raise QualityError(
                _("You have used every attempt at this round; it cannot be taken again."),
                status=403, code="no_attempts",
            )  # fmt: skip
        if allowed_at > now:
            raise QualityError(
                _("You can try this round again after %(time)s UTC.")
                % {"time": f"{allowed_at:%Y-%m-%d %H:%M}"},
                status=429, code="too_early",
                retry_after=max(1, math.ceil((allowed_at - now).total_seconds())),
            )  # fmt: skip
        pool = round_pool(round_)
        asked = draw_items(pool, round_size(round_, pool), [a.gold_ids for a in attempts], _rng)
        attempt = RoundAttempt.objects.create(
            qualification=qualification, round=round_, number=used + 1, started_at=now,
            gold_ids=asked,
        )  # fmt: skip
        if qualification.state == State.INVITED:
            qualification.state = State.STARTED
            qualification.updated_at = now
            qualification.save(update_fields=["state", "updated_at"])
    return attempt


def round_gold(round_: QualificationRound) -> list[GoldItem]:
    """Every gold item of the round (its pool), in item order."""
    return list(round_.gold_items.select_related("item").order_by("item__position", "pk"))


def open_attempt(*, project: Project, annotator, position: int) -> RoundAttempt:
    attempt = (
        RoundAttempt.objects.filter(
            qualification__project=project,
            qualification__annotator=annotator,
            round__position=position,
            finished_at__isnull=True,
        )
        .select_related("round", "qualification")
        .first()
    )
    if attempt is None:
        raise QualityError(
            _("You have no open attempt at this round; start it first."),
            status=409,
            code="not_open",
        )
    return attempt


def _gold_at(attempt: RoundAttempt, index: int) -> GoldItem:
    golds = attempt_gold(attempt)
    if not 1 <= index <= len(golds):
        raise QualityError(_("No such item in this round."), status=404, code="not_found")
    return golds[index - 1]


def attempt_draft(
    *, project: Project, annotator, position: int, index: int, labels
) -> RoundAttempt:
    with transaction.atomic():
        attempt = open_attempt(project=project, annotator=annotator, position=position)
        gold = _gold_at(attempt, index)
        attempt.drafts[str(index)] = gold.item.labels_clean(labels, project.category_keys())
        attempt.save(update_fields=["drafts"])
    return attempt


def attempt_answer(*, project: Project, annotator, position: int, index: int, labels,
                   now=None) -> RoundAttempt:  # fmt: skip
    """Record the answer for item ``index``; the last answer scores the attempt."""
    now = now or timezone.now()
    keys = project.category_keys()
    with transaction.atomic():
        _locked_qualification(project, annotator)
        attempt = open_attempt(project=project, annotator=annotator, position=position)
        golds = attempt_gold(attempt)
        gold = _gold_at(attempt, index)
        if str(gold.pk) in attempt.answers:
            raise QualityError(_("You already answered this item."), status=409, code="answered")
        attempt.answers[str(gold.pk)] = gold.item.labels_clean(labels, keys)
        attempt.drafts.pop(str(index), None)
        attempt.save(update_fields=["answers", "drafts"])
        if len(attempt.answers) == len(golds):
            _finish(attempt, golds, keys, now)
    return attempt


def _finish(attempt: RoundAttempt, golds, keys, now) -> None:
    round_ = attempt.round
    score = score_many([(attempt.answers[str(g.pk)], g.labels) for g in golds], keys)
    attempt.accuracy, attempt.f1 = score.accuracy, score.f1
    attempt.passed = score.value(round_.rule) >= round_.pass_mark
    attempt.finished_at = now
    attempt.save(update_fields=["accuracy", "f1", "passed", "finished_at"])
    qualification = Qualification.objects.select_for_update().get(pk=attempt.qualification_id)
    if attempt.passed:
        qualification.rounds_passed = round_.position
        if not round_.project.rounds.filter(position__gt=round_.position).exists():
            qualification.state = State.QUALIFIED
    else:
        policy = policy_for(round_.project)
        if attempt.number >= attempts_allowed(qualification, round_, policy):
            qualification.state = State.ELIMINATED
    qualification.updated_at = now
    qualification.save(update_fields=["rounds_passed", "state", "updated_at"])


def next_item_index(attempt: RoundAttempt) -> int | None:
    """The first item of the attempt not answered yet (1-based), or None."""
    for index, gold in enumerate(attempt_gold(attempt), start=1):
        if str(gold.pk) not in attempt.answers:
            return index
    return None


def latest_finished(*, project: Project, annotator, position: int) -> RoundAttempt | None:
    return (
        RoundAttempt.objects.filter(
            qualification__project=project, qualification__annotator=annotator,
            round__position=position, finished_at__isnull=False,
        ).order_by("-number").select_related("round", "qualification").first()
    )  # fmt: skip


def attempt_review(*, project: Project, annotator, position: int) -> tuple:
    """The gold labels of the latest finished attempt, only when the review rule allows it."""
    policy = policy_for(project)
    attempt = latest_finished(project=project, annotator=annotator, position=position)
    if attempt is None and not project.rounds.filter(position=position).exists():
        # No round there at all: not found, as the round's other addresses answer.
        raise QualityError(_("No such round."), status=404, code="not_found")
    qualification = attempt.qualification if attempt is not None else None
    opened, reason = review_state(
        policy=policy,
        qualification=qualification,
        round_=attempt.round if attempt is not None else None,
        attempt=attempt,
    )
    if not opened:
        raise QualityError(str(reason), status=403, code="forbidden")
    return attempt, attempt_gold(attempt)
