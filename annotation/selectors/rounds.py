"""The researcher's list of qualification rounds, with what each row may do and why not."""

from __future__ import annotations

from dataclasses import dataclass

from annotation.models import GoldItem, Project, Qualification, QualificationRound
from annotation.selectors.round_rules import (
    attempted_by_round,
    delete_refusal,
    move_refusal,
    settings_refusal,
)


@dataclass(frozen=True)
class RoundRow:
    round: QualificationRound
    attempted: int
    # The reason a control is disabled (shown as its tooltip), or None when it is allowed.
    settings_locked: str | None
    delete_locked: str | None
    up_locked: str | None
    down_locked: str | None


def _message(refusal) -> str | None:
    return refusal.message if refusal is not None else None


def round_rows(project: Project) -> list[RoundRow]:
    """Each round in order, with the same refusals the services would give."""
    rounds = list(project.rounds.order_by("position").prefetch_related("gold_items__item"))
    attempted = attempted_by_round(rounds)
    rows = []
    for index, round_ in enumerate(rounds):
        count = attempted.get(round_.pk, 0)
        rows.append(
            RoundRow(
                round=round_,
                attempted=count,
                settings_locked=_message(settings_refusal(round_, count)),
                delete_locked=_message(delete_refusal(rounds, index, attempted)),
                up_locked=_message(move_refusal(rounds, index, "up", attempted)),
                down_locked=_message(move_refusal(rounds, index, "down", attempted)),
            )
        )
    return rows


def waiting_for_no_round(project: Project, rounds_left: int):
    """Annotators still qualifying who have passed every one of ``rounds_left`` rounds.

    After the last round is deleted they would wait for a round that no longer exists;
    round_delete qualifies them, and its confirmation page names them first.
    """
    return Qualification.objects.filter(
        project=project, state=Qualification.State.STARTED, rounds_passed__gte=rounds_left
    ).select_related("annotator")


@dataclass(frozen=True)
class RoundDeletion:
    """What deleting a round would do, or why it cannot be deleted (``problem``)."""

    round: QualificationRound
    problem: str
    later: list[QualificationRound]  # these move up one place
    to_control: list[GoldItem]  # gold items no other round uses: they become control items
    shared: list[tuple[GoldItem, list[int]]]  # gold items other rounds keep, with their positions
    to_qualify: list[str]  # usernames qualified because the last round goes
    last_of_all: bool  # the project is left without rounds


def round_deletion(*, project: Project, round_id: int) -> RoundDeletion:
    """The same refusal round_delete gives, with what the deletion would change."""
    rounds = list(project.rounds.order_by("position"))
    index = next(i for i, r in enumerate(rounds) if r.pk == round_id)
    round_ = rounds[index]
    refusal = delete_refusal(rounds, index, attempted_by_round(rounds))
    remaining = len(rounds) - 1
    to_control, shared = [], []
    golds = round_.gold_items.select_related("item").prefetch_related("rounds").order_by("pk")
    for gold in golds:
        others = sorted(r.position for r in gold.rounds.all() if r.pk != round_.pk)
        if others:
            shared.append((gold, others))
        else:
            to_control.append(gold)
    to_qualify = []
    if index == len(rounds) - 1 and remaining:
        waiting = waiting_for_no_round(project, remaining).order_by("annotator__username")
        to_qualify = [q.annotator.username for q in waiting]
    return RoundDeletion(
        round=round_,
        problem=_message(refusal) or "",
        later=rounds[index + 1 :],
        to_control=to_control,
        shared=shared,
        to_qualify=to_qualify,
        last_of_all=not remaining,
    )
