"""What may change in a project's qualification rounds, and why not: the rules both the
researcher's list of rounds (to disable a control and say why) and the changes themselves
(to refuse one) read. The reasons are explained in annotation.services.quality.round_edits.
"""

from __future__ import annotations

from typing import NamedTuple

from django.db.models import Count

from annotation.models import QualificationRound, RoundAttempt


class Refusal(NamedTuple):
    code: str
    message: str


def _people(n: int) -> str:
    return f"{n} annotator{'s' if n != 1 else ''}"


def settings_refusal(round_: QualificationRound, attempted: int) -> Refusal | None:
    """Why the rule, pass mark and gold items of ``round_`` cannot change, or None."""
    if not attempted:
        return None
    return Refusal(
        "round_started",
        f"Round {round_.position} has been attempted by {_people(attempted)}, so its rule, pass "
        "mark and gold items are fixed: changing them would judge later annotators by another "
        "standard than earlier ones. You can still rename it, or add a new round with the new "
        "settings.",
    )


def delete_refusal(rounds: list, index: int, attempted: dict) -> Refusal | None:
    """Why ``rounds[index]`` cannot be deleted, or None; ``attempted`` maps round id -> annotators.

    Deleting moves every later round up one place, so a later round someone has
    attempted (possible only after a manual qualification) blocks it as well.
    """
    round_ = rounds[index]
    if attempted.get(round_.pk):
        return Refusal(
            "round_started",
            f"Round {round_.position} cannot be deleted: {_people(attempted[round_.pk])} "
            "attempted it, and their results and progress count it. You can rename it, or add "
            "a new round after it.",
        )
    later = [r for r in rounds[index + 1 :] if attempted.get(r.pk)]
    if later:
        return Refusal(
            "round_started",
            f"Round {round_.position} cannot be deleted: annotators have attempted round "
            f"{later[0].position} after it, and progress counts the rounds passed in order.",
        )
    return None


def move_refusal(rounds: list, index: int, direction: str, attempted: dict) -> Refusal | None:
    """Why ``rounds[index]`` cannot swap with its neighbour in ``direction``, or None.

    ``rounds`` is the project's list in order; ``attempted`` maps round id -> annotators.
    """
    round_ = rounds[index]
    target = index - 1 if direction == "up" else index + 1
    if not 0 <= target < len(rounds):
        edge = "first" if direction == "up" else "last"
        return Refusal("at_edge", f"Round {round_.position} is already the {edge} round.")
    started = [r for r in sorted((round_, rounds[target]), key=lambda r: r.position)
               if attempted.get(r.pk)]  # fmt: skip
    if not started:
        return None
    return Refusal(
        "round_started",
        f"Round {round_.position} cannot move {direction}: annotators have attempted round "
        f"{started[0].position}. Progress counts the rounds passed in order, so swapping a round "
        "someone has taken would credit them with a round they never took. Rounds nobody has "
        "attempted yet can still be moved.",
    )


def attempted_by_round(rounds) -> dict[int, int]:
    """{round id: how many annotators have attempted it (finished or not)}."""
    rows = (
        RoundAttempt.objects.filter(round__in=[r.pk for r in rounds])
        .values("round")
        .annotate(n=Count("qualification", distinct=True))
    )
    return {row["round"]: row["n"] for row in rows}
