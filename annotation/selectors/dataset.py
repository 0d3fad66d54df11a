"""Facts about a project that its dataset export's metadata states: who labelled, how
annotators were qualified and checked, and when the labels were given."""

from __future__ import annotations

from django.db.models import Count, Max, Min

from annotation.models import (
    GoldItem,
    ImportBatch,
    Project,
    Qualification,
    QualificationRound,
    QualityPolicy,
)
from annotation.selectors.quality import control_items, counted_label_sets


def dataset_collection_facts(project: Project, *, labels: str, include_excluded: bool) -> dict:
    """Counts, dates, rounds and the quality policy, in a handful of queries."""
    counted = counted_label_sets(project, include_excluded=include_excluded)
    spans = counted.aggregate(
        first=Min("submitted_at"),
        last=Max("submitted_at"),
        label_sets=Count("pk"),
        annotators=Count("annotator_id", distinct=True),
    )
    if labels == "reference" or spans["first"] is None:
        # Imported labels: their dates are the imports'.
        spans.update(ImportBatch.objects.filter(project=project).aggregate(
            first=Min("created_at"), last=Max("created_at")
        ))  # fmt: skip
    rounds = [
        {"title": r.title, "rule": r.get_rule_display(), "pass_mark": r.pass_mark, "gold": r.n}
        for r in QualificationRound.objects.filter(project=project)
        .annotate(n=Count("gold_items"))
        .order_by("position", "pk")
    ]
    return {
        "first": spans["first"],
        "last": spans["last"],
        "label_sets": spans["label_sets"],
        "annotators": spans["annotators"],
        "members": project.members.count(),
        "qualified": Qualification.objects.filter(project=project, state="qualified").count(),
        "rounds": rounds,
        "gold_items": GoldItem.objects.filter(project=project).count(),
        "control_items": control_items(project).count(),
        "policy": QualityPolicy.objects.filter(project=project).first(),
    }
