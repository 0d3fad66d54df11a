"""Quality control services: gold, qualification rounds, control items, moderation."""

from annotation.services.quality.common import (
    QualityError,
    policy_for,
    qualification_for,
)
from annotation.services.quality.controls import (
    control_candidates,
    control_draws,
    control_record,
    control_tally,
    work_gate,
)
from annotation.services.quality.gold import gold_from_reference, gold_rescore, gold_set
from annotation.services.quality.moderation import ACTIONS, annotator_decide
from annotation.services.quality.retries import attempt_grant, policy_update
from annotation.services.quality.rounds import (
    attempt_answer,
    attempt_draft,
    attempt_review,
    attempt_start,
    next_item_index,
    open_attempt,
    round_create,
    round_gold,
)

__all__ = [
    "ACTIONS",
    "QualityError",
    "annotator_decide",
    "attempt_answer",
    "attempt_draft",
    "attempt_grant",
    "attempt_review",
    "attempt_start",
    "control_candidates",
    "control_record",
    "control_tally",
    "control_draws",
    "gold_from_reference",
    "gold_rescore",
    "gold_set",
    "next_item_index",
    "open_attempt",
    "policy_for",
    "policy_update",
    "qualification_for",
    "round_create",
    "round_gold",
    "work_gate",
]
