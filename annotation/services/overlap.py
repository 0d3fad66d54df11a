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

import numpy as np
from django.db import transaction

from analysis.aggregation import aggregate_binary
from analysis.posterior import label_set_posteriors
from annotation.assignment import strategy as rules
from annotation.models import Item, LabelSet, Project
from annotation.selectors.quality import counted_label_sets

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


def overlap_estimates_refresh(project: Project) -> dict:
    """Fit the project's aggregation method per category and keep the annotators' rates.

    The confidence rule scores each new label set with these rates (an item's
    posterior with the annotators' parameters fixed), so they are refreshed with
    every annotators' report (the job after labels arrive) and when the method
    changes; then every item's flag is computed again with them. Majority vote
    has no rates: nothing is stored.
    """
    method = getattr(project, "aggregation_method", MAJORITY)
    if method == MAJORITY:
        estimates = {}
    else:
        estimates = _fit(project, method)
    Project.objects.filter(pk=project.pk).update(overlap_estimates=estimates)
    project.overlap_estimates = estimates
    overlap = project.overlap()
    if overlap.adaptive and overlap.rule == rules.CONFIDENCE:
        project_disputes_recompute(project)
    return estimates


def _fit(project: Project, method: str) -> dict:
    keys = project.category_keys()
    tasks, workers, marks = [], [], {key: [] for key in keys}
    rows = counted_label_sets(project).order_by().values_list("item_id", "annotator_id", "labels")
    for item_id, annotator_id, labels in rows.iterator(chunk_size=2000):
        for index, marked in enumerate(labels):
            tasks.append(f"{item_id}:{index}")
            workers.append(annotator_id)
            for key in keys:
                marks[key].append(int(key in marked))
    categories = {}
    if tasks:
        for key in keys:
            fit = aggregate_binary(method, tasks, workers, marks[key])
            rates = {
                str(w): [float(se), float(sp)]
                for w, se, sp in zip(fit.workers, fit.sensitivity, fit.specificity, strict=True)
            }
            categories[key] = {"prior": float(np.mean(fit.p_positive)), "rates": rates}
    return {"method": method, "categories": categories}
