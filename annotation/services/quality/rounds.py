"""Qualification rounds: taken in order, scored against gold, retried only when allowed."""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from annotation.models import GoldItem, Project, Qualification, QualificationRound, RoundAttempt
from annotation.services.quality.common import (
    QualityError,
    policy_for,
    qualification_for,
)
from annotation.services.quality.round_edits import check_round_settings, rounds_locked
from annotation.services.quality.scoring import score_many
from core.services.audit import audit_record

State = Qualification.State


def round_create(*, project: Project, title: str, gold_items, rule: str = "f1",
                 pass_mark: float = 0.6, actor=None) -> QualificationRound:  # fmt: skip
    gold_items = list(gold_items)
    check_round_settings(project=project, gold_items=gold_items, rule=rule, pass_mark=pass_mark)
    with transaction.atomic():
        rounds = rounds_locked(project)
        created = QualificationRound.objects.create(
            project=project,
            position=(rounds[-1].position if rounds else 0) + 1,
            title=title,
            rule=rule,
            pass_mark=pass_mark,
        )
        created.gold_items.set(gold_items)
        audit_record(actor=actor, action="annotation.round_create", subject=project.subject,
                     details={"position": created.position, "title": title})  # fmt: skip
    return created


def _round_locked(project: Project, position: int) -> QualificationRound | None:
    """The round at ``position``, locked so no researcher edits, moves or deletes it meanwhile."""
    # If a researcher's reorder commits while this waits for the lock, the row it waited
    # for has moved away and the locked read comes back empty; a second read sees the
    # new order (each statement reads the latest committed state).
    for _ in range(2):
        found = (
            QualificationRound.objects.select_for_update()
            .filter(project=project, position=position)
            .first()
        )
        if found is not None:
            return found
    return None


def _locked_qualification(project, annotator) -> Qualification:
    qualification_for(project=project, annotator=annotator)
    return Qualification.objects.select_for_update().get(project=project, annotator=annotator)


def retry_at(qualification: Qualification, round_: QualificationRound, policy) -> tuple:
    """(attempts used, when the next attempt may start or None if no attempt is left)."""
    attempts = [a for a in qualification.attempts.all() if a.round_id == round_.pk]
    used = len(attempts)
    if used >= policy.max_attempts:
        return used, None
    last = max((a.finished_at for a in attempts if a.finished_at), default=None)
    if last is None:
        return used, timezone.now() - timedelta(seconds=1)
    return used, last + timedelta(minutes=policy.retry_delay_minutes)


def attempt_start(*, project: Project, annotator, position: int, now=None) -> RoundAttempt:
    """Start (or resume) the annotator's attempt at round ``position``."""
    now = now or timezone.now()
    policy = policy_for(project)
    with transaction.atomic():
        # The round before the qualification: round_edits locks in that order too.
        round_ = _round_locked(project, position)
        qualification = _locked_qualification(project, annotator)
        if round_ is None:
            raise QualityError("No such round.", status=404, code="not_found")
        if qualification.state == State.ELIMINATED:
            raise QualityError(
                "You did not qualify for this project, so its rounds are closed to you.",
                status=403, code="eliminated",
            )  # fmt: skip
        if position <= qualification.rounds_passed:
            raise QualityError("You already passed this round.", status=409, code="passed")
        if position != qualification.rounds_passed + 1:
            raise QualityError(
                f"Take round {qualification.rounds_passed + 1} first; rounds go in order.",
                status=409, code="out_of_order",
            )  # fmt: skip
        open_attempt = qualification.attempts.filter(round=round_, finished_at__isnull=True).first()
        if open_attempt is not None:
            return open_attempt
        used, allowed_at = retry_at(qualification, round_, policy)
        if allowed_at is None:
            raise QualityError(
                "You have used every attempt at this round; it cannot be taken again.",
                status=403, code="no_attempts",
            )  # fmt: skip
        if allowed_at > now:
            raise QualityError(
                f"You can try this round again after {allowed_at:%Y-%m-%d %H:%M} UTC.",
                status=429, code="too_early",
            )  # fmt: skip
        attempt = RoundAttempt.objects.create(
            qualification=qualification, round=round_, number=used + 1, started_at=now
        )
        if qualification.state == State.INVITED:
            qualification.state = State.STARTED
            qualification.updated_at = now
            qualification.save(update_fields=["state", "updated_at"])
    return attempt


def round_gold(round_: QualificationRound) -> list[GoldItem]:
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
            "You have no open attempt at this round; start it first.", status=409, code="not_open"
        )
    return attempt


def _gold_at(attempt: RoundAttempt, index: int) -> GoldItem:
    golds = round_gold(attempt.round)
    if not 1 <= index <= len(golds):
        raise QualityError("No such item in this round.", status=404, code="not_found")
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
        golds = round_gold(attempt.round)
        gold = _gold_at(attempt, index)
        if str(gold.pk) in attempt.answers:
            raise QualityError("You already answered this item.", status=409, code="answered")
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
        if attempt.number >= policy.max_attempts:
            qualification.state = State.ELIMINATED
    qualification.updated_at = now
    qualification.save(update_fields=["rounds_passed", "state", "updated_at"])


def next_item_index(attempt: RoundAttempt) -> int | None:
    """The first item of the attempt not answered yet (1-based), or None."""
    for index, gold in enumerate(round_gold(attempt.round), start=1):
        if str(gold.pk) not in attempt.answers:
            return index
    return None


def attempt_review(*, project: Project, annotator, position: int) -> tuple:
    """The gold labels of a finished round, for an annotator, only if the researcher allows it."""
    policy = policy_for(project)
    attempt = (
        RoundAttempt.objects.filter(
            qualification__project=project, qualification__annotator=annotator,
            round__position=position, finished_at__isnull=False,
        ).order_by("-number").select_related("round").first()
    )  # fmt: skip
    if not policy.show_gold_after_round:
        raise QualityError(
            "This project does not show the researchers' labels after a round.",
            status=403, code="forbidden",
        )  # fmt: skip
    if attempt is None:
        raise QualityError(
            "Finish the round first; its labels are shown afterwards.", status=403, code="forbidden"
        )
    return attempt, round_gold(attempt.round)
