"""Adaptive overlap's writes: whether an item is still undecided, and the rates the rule uses.

``item_dispute_update`` runs inside the submit's transaction, under the item's
row lock, right after ``submitted_count`` grows, so the counter and the
``disputed`` flag the queue filters on always change together. The rule itself
is the pure one in annotation/assignment/strategy.py; the confidence rule's
posteriors come from analysis/posterior.py with the annotators' rates of the
last fit of the project's aggregation method (``overlap_estimates_refresh``).
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction

from analysis.posterior import label_set_posteriors
from annotation.assignment import strategy as rules
from annotation.models import Item, LabelSet, Project

MAJORITY = "majority"


def item_posteriors(
    project: Project, label_sets: Sequence[tuple[int, list]], keys: Sequence[str]
) -> list[float]:
    """One posterior per category and sentence of an item, from its (annotator id, labels) pairs."""
    return label_set_posteriors(
        label_sets,
        keys,
        method=getattr(project, "aggregation_method", MAJORITY),
        estimates=project.overlap_estimates or {},
    )


def item_disputed(project: Project, label_sets: Sequence[tuple[int, list]], keys) -> bool:
    overlap = project.overlap()
    if not overlap.adaptive or len(label_sets) < overlap.k_min:
        return False
    posteriors = (
        item_posteriors(project, label_sets, keys) if overlap.rule == rules.CONFIDENCE else ()
    )
    return rules.disputed(overlap, [labels for _, labels in label_sets], posteriors)


def item_dispute_update(*, project: Project, item_id: int, keys) -> bool:
    """Set the item's ``disputed`` flag from its label sets (the caller holds the item's lock)."""
    if not project.overlap().adaptive:
        return False
    label_sets = list(
        LabelSet.objects.filter(item_id=item_id)
        .order_by("pk")
        .values_list("annotator_id", "labels")
    )
    flag = item_disputed(project, label_sets, keys)
    Item.objects.filter(pk=item_id).update(disputed=flag)
    return flag


def project_disputes_recompute(project: Project) -> int:
    """Every item's flag again, after the policy, its rule or the rates changed; returns how many flipped.

    Each batch locks its items, as a submit would, so a submit running meanwhile
    is applied before or after the batch, never lost between read and write.
    """
    keys = project.category_keys()
    ids = list(
        Item.objects.filter(project=project, submitted_count__gt=0)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    flipped = 0
    for start in range(0, len(ids), 500):
        flipped += _recompute_batch(project, ids[start : start + 500], keys)
    return flipped


def _recompute_batch(project: Project, ids: list[int], keys) -> int:
    with transaction.atomic():
        flags = dict(
            Item.objects.filter(pk__in=ids)
            .order_by("pk")
            .select_for_update()
            .values_list("pk", "disputed")
        )
        sets: dict[int, list] = {pk: [] for pk in flags}
        rows = LabelSet.objects.filter(item_id__in=ids).order_by("pk")
        for item_id, who, labels in rows.values_list("item_id", "annotator_id", "labels"):
            sets[item_id].append((who, labels))
        changed = {pk: item_disputed(project, sets[pk], keys) for pk in flags}
        flips = [pk for pk, flag in changed.items() if flag != flags[pk]]
        for flag in (True, False):
            Item.objects.filter(pk__in=[pk for pk in flips if changed[pk] is flag]).update(
                disputed=flag
            )
    return len(flips)
