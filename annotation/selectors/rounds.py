"""The researcher's list of qualification rounds, with what each row may do and why not."""

from __future__ import annotations

from dataclasses import dataclass

from annotation.models import Project, QualificationRound
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
