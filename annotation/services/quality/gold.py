"""Gold labels: set by a researcher in gold mode, or taken over from imported reference labels.

Changing gold after annotators were scored re-scores every finished attempt and
control label set that used it, and logs each change. An attempt whose pass/fail
outcome flips is logged as such but the annotator's standing is left for the
researcher to decide (qualify or disqualify by hand): silently eliminating
someone mid-project, or letting someone in, because of a gold fix is a decision
a person should take.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from annotation.models import (
    GoldItem,
    Item,
    LabelSet,
    Project,
    Qualification,
    ReferenceLabels,
    RoundAttempt,
)
from annotation.services.quality.common import QualityError
from annotation.services.quality.scoring import score_many
from core.services.audit import audit_record


def gold_set(*, project: Project, item: Item, labels, explanation: str | None = None, actor,
             source: str = GoldItem.Source.ANNOTATED) -> GoldItem:  # fmt: skip
    """Create or change an item's gold labels; re-score whoever was scored on it."""
    if item.project_id != project.pk:
        raise QualityError("No such item in this project.", status=404, code="not_found")
    keys = project.category_keys()
    cleaned = item.labels_clean(labels, keys)
    with transaction.atomic():
        gold = GoldItem.objects.select_for_update().filter(item=item).first()
        changed = gold is not None and gold.labels != cleaned
        if gold is None:
            gold = GoldItem(project=project, item=item)
        gold.labels = cleaned
        if explanation is not None:
            gold.explanation = explanation
        gold.source = source
        gold.updated_by = actor
        gold.updated_at = timezone.now()
        gold.save()
        audit_record(
            actor=actor,
            action="annotation.gold_set",
            subject=project.subject,
            details={"item": item.external_id, "labels": cleaned, "source": source},
        )
        if changed:
            gold_rescore(gold=gold, actor=actor)
    return gold


def gold_from_reference(*, project: Project, actor, item_ids=None) -> int:
    """Mark imported reference labels as gold (all of the project's, or the given items')."""
    refs = ReferenceLabels.objects.filter(item__project=project).select_related("item")
    if item_ids is not None:
        refs = refs.filter(item_id__in=item_ids)
    count = 0
    with transaction.atomic():
        for ref in refs:
            gold_set(project=project, item=ref.item, labels=ref.labels, actor=actor,
                     source=GoldItem.Source.REFERENCE)  # fmt: skip
            count += 1
    return count


def gold_rescore(*, gold: GoldItem, actor) -> dict:
    """Re-score finished attempts and control label sets that used ``gold``; log each change."""
    from annotation.services.quality.controls import qualification_recount

    keys = gold.project.category_keys()
    changes = {"attempts": 0, "flipped": 0, "controls": 0}
    attempts = RoundAttempt.objects.filter(
        round__gold_items=gold, finished_at__isnull=False
    ).select_related("round", "qualification__annotator")
    for attempt in attempts:
        golds = {str(g.pk): g.labels for g in attempt.round.gold_items.all()}
        score = score_many(
            [(attempt.answers[k], labels) for k, labels in golds.items() if k in attempt.answers],
            keys,
        )
        passed = score.value(attempt.round.rule) >= attempt.round.pass_mark
        old = {"accuracy": attempt.accuracy, "f1": attempt.f1, "passed": attempt.passed}
        attempt.accuracy, attempt.f1 = score.accuracy, score.f1
        flipped = passed != attempt.passed
        attempt.passed = passed
        attempt.save(update_fields=["accuracy", "f1", "passed"])
        changes["attempts"] += 1
        changes["flipped"] += flipped
        audit_record(
            actor=actor,
            action="annotation.attempt_rescored",
            subject=gold.project.subject,
            reason="Gold labels changed after scoring.",
            details={
                "annotator": attempt.qualification.annotator.username,
                "round": attempt.round.position,
                "before": old,
                "after": {"accuracy": score.accuracy, "f1": score.f1, "passed": passed},
                "outcome_changed": flipped,
            },
        )
    # Control scores are recomputed from the label sets, so a recount of everyone
    # who labelled this control picks up the new gold.
    annotators = list(
        LabelSet.objects.filter(item_id=gold.item_id).values_list("annotator_id", flat=True)
    )
    changes["controls"] = len(annotators)
    touched = Qualification.objects.filter(
        project_id=gold.project_id, annotator_id__in=annotators
    ).select_related("annotator")
    for before in touched:
        after = qualification_recount(qualification_id=before.pk, actor=actor, keys=keys)
        audit_record(
            actor=actor,
            action="annotation.controls_rescored",
            subject=gold.project.subject,
            reason="Gold labels changed after scoring.",
            details={
                "annotator": before.annotator.username,
                "item": gold.item_id,
                "before": {"controls": before.controls_done, "score": before.control_accuracy},
                "after": {"controls": after.controls_done, "score": after.control_accuracy},
                "paused": after.work_state != before.work_state,
            },
        )
    return changes
