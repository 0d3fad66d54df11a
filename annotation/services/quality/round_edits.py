"""Changing a project's qualification rounds after they were created: edit, delete, reorder.

An annotator's progress is a count (``Qualification.rounds_passed``): having passed
round k means having passed rounds 1..k. So once anyone has attempted a round, its
position, rule, pass mark and gold items are fixed: moving it would credit people with
rounds they never took, and changing how it is scored would judge later annotators by
another standard than earlier ones. Its title can always change.

Every change (and round_create) first locks the project row, then its rounds, so
changes to the list happen one at a time and positions stay 1..n without gaps.
attempt_start locks the round it starts, so an annotator's first attempt and a change
to that round never interleave: whichever comes second sees the other. Deleting the
last round also locks the annotators' standings (rounds, then standings: the order
attempt_start uses), because it may qualify those waiting for that round.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from annotation.languages import ROUND_TEXTS, clean_translations
from annotation.models import Project, Qualification, QualificationRound
from annotation.selectors.round_rules import (
    Refusal,
    attempted_by_round,
    delete_refusal,
    move_refusal,
    settings_refusal,
)
from annotation.selectors.rounds import waiting_for_no_round
from annotation.services.quality.common import QualityError, policy_for
from annotation.services.quality.retries import reopen
from core.services.audit import audit_record

DIRECTIONS = ("up", "down")
TITLE_MAX = QualificationRound._meta.get_field("title").max_length


def check_round_settings(*, project: Project, gold_items, rule: str, pass_mark: float) -> None:
    """The rules a round's settings follow, whether it is new or edited."""
    if not gold_items:
        raise QualityError("A round needs at least one gold item.", status=400, code="invalid")
    if any(g.project_id != project.pk for g in gold_items):
        raise QualityError("Gold items must belong to the project.", status=400, code="invalid")
    if rule not in QualificationRound.Rule.values:
        raise QualityError("The rule is 'f1' or 'accuracy'.", status=400, code="invalid")
    if not 0 <= pass_mark <= 1:
        raise QualityError("The pass mark is between 0 and 1.", status=400, code="invalid")


def check_round_limit(max_attempts) -> None:
    """A round's own attempt limit: empty (the project's) or 1 to 10, like the project's."""
    if max_attempts is not None and not 1 <= max_attempts <= 10:
        raise QualityError("A round allows 1 to 10 attempts.", status=400, code="invalid")


def rounds_locked(project: Project) -> list[QualificationRound]:
    """Lock the project's list of rounds for a change; return the rounds in order."""
    # Row locks on existing rounds cannot stop an insert (or guard an empty list), so the
    # project row is the lock every change takes first. no_key (FOR NO KEY UPDATE) on both:
    # rows that merely reference them (items, label sets, attempts) can still be written,
    # so an annotator finishing an attempt never waits for this, and no deadlock arises
    # from the foreign-key checks PostgreSQL runs at their commit. attempt_start's
    # FOR UPDATE on its round does wait for this.
    Project.objects.select_for_update(no_key=True).filter(pk=project.pk).first()
    return list(
        QualificationRound.objects.select_for_update(no_key=True)
        .filter(project=project)
        .order_by("position")
    )


def _find(rounds, round_id: int) -> QualificationRound:
    for round_ in rounds:
        if round_.pk == round_id:
            return round_
    raise QualityError("No such round.", status=404, code="not_found")


def _refuse(refusal: Refusal | None) -> None:
    if refusal is not None:
        raise QualityError(refusal.message, status=409, code=refusal.code)


def _renumber(rounds_in_order: list[QualificationRound]) -> None:
    """Give the rounds positions 1..n in this order, never two rows on one position."""
    moving = [(r, n) for n, r in enumerate(rounds_in_order, start=1) if r.position != n]
    if not moving:
        return
    # Park the rounds that move above every position in use, then put each in place:
    # (project, position) is unique at every moment, on any database.
    offset = max(r.position for r in rounds_in_order) + 1
    QualificationRound.objects.filter(pk__in=[r.pk for r, _ in moving]).update(
        position=F("position") + offset
    )
    for round_, position in moving:
        QualificationRound.objects.filter(pk=round_.pk).update(position=position)
        round_.position = position


def _settings(round_: QualificationRound) -> dict:
    return {
        "title": round_.title,
        "rule": round_.rule,
        "pass_mark": round_.pass_mark,
        "items_per_attempt": round_.items_per_attempt,
        "max_attempts": round_.max_attempts,
        "gold_items": sorted(g.item_id for g in round_.gold_items.all()),
        "translations": round_.translations or {},
    }


# "Leave as it is" for items_per_attempt and max_attempts, where None means "all items"
# and "the project's limit".
KEEP = object()


def round_update(*, project: Project, round_id: int, actor, title: str | None = None,
                 gold_items=None, rule: str | None = None, pass_mark: float | None = None,
                 items_per_attempt=KEEP, max_attempts=KEEP,
                 translations: dict | None = None) -> QualificationRound:  # fmt: skip
    """Change a round; ``None`` leaves a setting as it is.

    Values equal to the current ones are no change, so a form that sends every field
    can still rename a round that annotators have attempted.
    """
    if title is not None:
        title = title.strip()
        if not title or len(title) > TITLE_MAX:
            raise QualityError(f"A round needs a title of 1 to {TITLE_MAX} characters.",
                               status=400, code="invalid")  # fmt: skip
    if translations is not None:
        try:
            translations = clean_translations(translations, ROUND_TEXTS)
        except ValidationError as exc:
            raise QualityError(" ".join(exc.messages), status=400, code="invalid") from None
    with transaction.atomic():
        rounds = rounds_locked(project)
        round_ = _find(rounds, round_id)
        before = _settings(round_)
        after = {
            "title": before["title"] if title is None else title,
            "rule": before["rule"] if rule is None else rule,
            "pass_mark": before["pass_mark"] if pass_mark is None else float(pass_mark),
            "items_per_attempt": (
                before["items_per_attempt"] if items_per_attempt is KEEP else items_per_attempt
            ),
            "max_attempts": before["max_attempts"] if max_attempts is KEEP else max_attempts,
            "gold_items": before["gold_items"],
            "translations": before["translations"] if translations is None else translations,
        }
        golds = None if gold_items is None else list(gold_items)
        if golds is not None:
            after["gold_items"] = sorted({g.item_id for g in golds})
        check_round_settings(
            project=project,
            gold_items=list(round_.gold_items.all()) if golds is None else golds,
            rule=after["rule"],
            pass_mark=after["pass_mark"],
        )
        pool = len(after["gold_items"])
        if after["items_per_attempt"] is not None and not 1 <= after["items_per_attempt"] <= pool:
            raise QualityError(
                f"Captions per attempt is between 1 and the round's {pool} gold items.",
                status=400, code="invalid",
            )  # fmt: skip
        check_round_limit(after["max_attempts"])
        changed = [key for key in before if before[key] != after[key]]
        if not changed:
            return round_
        # The title (in any language) and the attempt limit may change at any time; the rest
        # judges attempts.
        if set(changed) - {"title", "translations", "max_attempts"}:
            _refuse(settings_refusal(round_, attempted_by_round([round_]).get(round_.pk, 0)))
        fields = ["title", "rule", "pass_mark", "items_per_attempt", "max_attempts", "translations"]
        for key in fields:
            setattr(round_, key, after[key])
        round_.save(update_fields=fields)
        if "gold_items" in changed:
            round_.gold_items.set(golds)
        audit_record(
            actor=actor,
            action="annotation.round_update",
            subject=project.subject,
            details={
                "position": round_.position,
                "before": {key: before[key] for key in changed},
                "after": {key: after[key] for key in changed},
            },
        )
        if "max_attempts" in changed:
            _reopen_if_raised(project, round_, before["max_attempts"], actor)
    return round_


def _reopen_if_raised(project: Project, round_: QualificationRound, before, actor) -> None:
    """A higher limit on this round gives it back to those who used every attempt at it."""
    policy = policy_for(project)
    if (round_.max_attempts or policy.max_attempts) > (before or policy.max_attempts):
        reopen(project, policy, actor, only=round_)


def round_delete(*, project: Project, round_id: int, actor) -> dict:
    """Delete a round nobody has attempted; later rounds move up so positions stay 1..n.

    Deleting the last round leaves anyone who passed every remaining round waiting
    for a round that no longer exists; they are qualified, each with an audit entry.
    """
    with transaction.atomic():
        rounds = rounds_locked(project)
        round_ = _find(rounds, round_id)
        _refuse(delete_refusal(rounds, rounds.index(round_), attempted_by_round(rounds)))
        remaining = [r for r in rounds if r.pk != round_.pk]
        was_last = round_.pk == rounds[-1].pk
        if was_last and remaining:
            # Wait for annotators who are finishing a round right now: otherwise one could
            # read "a round is still to come" from the old list and stay waiting forever.
            list(Qualification.objects.select_for_update().filter(project=project).order_by("pk"))
        deleted = {**_settings(round_), "position": round_.position}
        round_.delete()
        _renumber(remaining)
        qualified = []
        if was_last and remaining:
            qualified = _qualify_waiting(project, len(remaining), deleted, actor)
        audit_record(
            actor=actor,
            action="annotation.round_delete",
            subject=project.subject,
            details={**deleted, "qualified": qualified},
        )
    return {"position": deleted["position"], "title": deleted["title"], "qualified": qualified}


def _qualify_waiting(project: Project, rounds_left: int, deleted: dict, actor) -> list[str]:
    waiting = waiting_for_no_round(project, rounds_left)
    now = timezone.now()
    names = []
    for qualification in waiting:
        qualification.state = Qualification.State.QUALIFIED
        qualification.updated_at = now
        qualification.save(update_fields=["state", "updated_at"])
        names.append(qualification.annotator.username)
        audit_record(
            actor=actor,
            action="annotation.annotator_qualify",
            subject=project.subject,
            reason=f"Round {deleted['position']}, the last round, was deleted; they had passed "
            "every remaining round.",
            details={"annotator": qualification.annotator.username, "automatic": True},
        )
    return sorted(names)


def round_move(*, project: Project, round_id: int, direction: str,
               actor) -> list[QualificationRound]:  # fmt: skip
    """Swap a round with its neighbour above (``up``) or below (``down``); returns the new order."""
    if direction not in DIRECTIONS:
        raise QualityError("The direction is 'up' or 'down'.", status=400, code="invalid")
    with transaction.atomic():
        rounds = rounds_locked(project)
        round_ = _find(rounds, round_id)
        index = rounds.index(round_)
        _refuse(move_refusal(rounds, index, direction, attempted_by_round(rounds)))
        target = index - 1 if direction == "up" else index + 1
        neighbour = rounds[target]
        start = round_.position
        rounds[index], rounds[target] = neighbour, round_
        _renumber(rounds)
        audit_record(
            actor=actor,
            action="annotation.round_move",
            subject=project.subject,
            details={
                "title": round_.title,
                "from": start,
                "to": round_.position,
                "swapped_with": {"title": neighbour.title, "now": neighbour.position},
            },
        )
    return rounds
