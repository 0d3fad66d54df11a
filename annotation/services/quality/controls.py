"""Control items in real work: the gate before a lease, mixing controls in, scoring them, pausing.

Control items are gold items that are not part of any qualification round. They
are leased through the very same Assignment rows, ids and pages as any other
item; only these server-side functions know which is which.
"""

from __future__ import annotations

import random

from django.db.models import Exists, OuterRef
from django.utils import timezone

from annotation.models import (
    Assignment,
    ControlResult,
    GoldItem,
    Item,
    LabelSet,
    Project,
    Qualification,
    QualificationRound,
)
from annotation.services.quality.common import QualityError, category_keys, policy_for
from annotation.services.quality.scoring import control_due, score_labels
from core.services.audit import audit_record

# SystemRandom: annotators cannot reconstruct the draws from earlier ones.
_rng = random.SystemRandom()

PAUSED_MESSAGE = (
    "Thank you for your work so far. Your account is paused for this project while the "
    "research team reviews recent labels; they will be in touch. You do not need to do anything."
)
BLOCKED_MESSAGE = "Thank you for your work. This project has no more items for you."


def work_gate(*, project: Project, annotator) -> Qualification | None:
    """Refuse new work to anyone not qualified, paused or blocked; None when the project has no rounds."""
    qualification = Qualification.objects.filter(project=project, annotator=annotator).first()
    if qualification is None:
        if not QualificationRound.objects.filter(project=project).exists():
            return None
        raise QualityError(
            "Please take the qualification rounds first.", status=403, code="not_qualified"
        )
    if qualification.work_state == Qualification.Work.BLOCKED:
        raise QualityError(BLOCKED_MESSAGE, status=403, code="blocked")
    if qualification.work_state == Qualification.Work.PAUSED:
        raise QualityError(PAUSED_MESSAGE, status=403, code="paused")
    if qualification.state == Qualification.State.QUALIFIED:
        return qualification
    if qualification.state == Qualification.State.ELIMINATED:
        raise QualityError(
            "Thank you for taking the qualification rounds. This project has no work for you.",
            status=403, code="eliminated",
        )  # fmt: skip
    if not QualificationRound.objects.filter(project=project).exists():
        return qualification
    raise QualityError(
        "Please take the qualification rounds first.", status=403, code="not_qualified"
    )


def control_items(project: Project):
    """Gold items usable as controls: every gold item outside the qualification rounds."""
    in_round = QualificationRound.gold_items.through.objects.filter(golditem_id=OuterRef("pk"))
    return GoldItem.objects.filter(project=project).filter(~Exists(in_round))


def control_lease(*, project: Project, annotator, qualification: Qualification | None, now):
    """Lease a control item if one is due for this annotator; None otherwise.

    Called by the queue inside its transaction, before it looks for a normal item.
    """
    if qualification is None:
        return None
    policy = policy_for(project)
    due = control_due(
        taken=qualification.items_taken,
        given=qualification.controls_given,
        rate=policy.control_rate,
        draw=_rng.random(),
    )
    if not due:
        return None
    seen = Assignment.objects.filter(item=OuterRef("item_id"), annotator=annotator)
    # One query picks and locks a random control the annotator has not had. SKIP
    # LOCKED: waiting here while holding an old lease's item could deadlock with
    # another annotator doing the same the other way round; a control skipped now
    # is made up later by the rate's bounds.
    item = (
        Item.objects.filter(pk__in=control_items(project).filter(~Exists(seen)).values("item_id"))
        .order_by("?")
        .select_for_update(skip_locked=True, of=("self",))
        .first()
    )
    if item is None:
        return None
    Qualification.objects.filter(pk=qualification.pk).update(
        items_taken=qualification.items_taken + 1, controls_given=qualification.controls_given + 1
    )
    # Slots past k keep the one-holder-per-slot constraint meaningful for controls,
    # which any number of annotators label.
    used = Assignment.objects.filter(item=item).count()
    return Assignment.objects.create(
        project=project,
        item=item,
        annotator=annotator,
        slot=project.annotators_per_item + used,
        leased_at=now,
        expires_at=now + project.lease_time,
    )


def control_tally(*, qualification: Qualification | None) -> None:
    """Count a normal item towards the control rate (called after the queue leased one)."""
    if qualification is not None:
        Qualification.objects.filter(pk=qualification.pk).update(
            items_taken=qualification.items_taken + 1
        )


def control_record(*, label_set: LabelSet) -> ControlResult | None:
    """Score a submitted label set if its item is a control; may pause the annotator.

    Ordinary items take the same first two queries and one write, so a submit's
    response time says little about whether the item was a control.
    """
    gold = GoldItem.objects.filter(item_id=label_set.item_id).first()
    qualification = (
        Qualification.objects.select_for_update(of=("self",))
        .select_related("project__quality")
        .filter(project_id=label_set.project_id, annotator_id=label_set.annotator_id)
        .first()
    )
    if qualification is None:
        return None
    if gold is None:
        Qualification.objects.filter(pk=qualification.pk).update(updated_at=timezone.now())
        return None
    project = qualification.project
    policy = getattr(project, "quality", None) or policy_for(project)
    score = score_labels(label_set.labels, gold.labels, category_keys(project))
    value = score.value(policy.control_rule)
    result = ControlResult.objects.create(
        qualification=qualification, label_set=label_set, gold=gold, score=value
    )
    qualification.controls_done += 1
    qualification.control_score_sum += value
    _pause_if_below(qualification, policy, actor=None)
    return result


def _pause_if_below(qualification: Qualification, policy, *, actor) -> None:
    """Save the running score; pause below the threshold once enough controls are in."""
    fields = ["controls_done", "control_score_sum", "updated_at"]
    accuracy = qualification.control_accuracy
    if (
        qualification.work_state == Qualification.Work.ACTIVE
        and qualification.controls_done >= policy.min_controls
        and accuracy is not None
        and accuracy < policy.pause_threshold
    ):
        qualification.work_state = Qualification.Work.PAUSED
        qualification.paused_at = timezone.now()
        fields += ["work_state", "paused_at"]
        audit_record(
            actor=actor,
            action="annotation.annotator_paused",
            subject=qualification.project.subject,
            reason=f"Control score {accuracy:.2f} below {policy.pause_threshold:.2f}",
            details={
                "annotator": qualification.annotator.username,
                "controls": qualification.controls_done,
            },
        )
    qualification.updated_at = timezone.now()
    qualification.save(update_fields=fields)


def qualification_recount(*, qualification_id: int, actor) -> Qualification:
    """Recompute the running control score from the results (after gold changed)."""
    qualification = Qualification.objects.select_for_update().get(pk=qualification_id)
    scores = list(qualification.control_results.values_list("score", flat=True))
    qualification.controls_done = len(scores)
    qualification.control_score_sum = float(sum(scores))
    _pause_if_below(qualification, policy_for(qualification.project), actor=actor)
    return qualification
