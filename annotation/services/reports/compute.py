"""Computing a project's report: agreement, aggregated labels and dataset tables.

The result is plain JSON (numbers, strings, lists, dicts; NaN as null) so it can
be stored, served over the API and exported as it is.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.utils import timezone

from analysis.aggregation import METHODS
from analysis.arrays import sorted_unique
from annotation.models import Item, Project
from annotation.selectors.agreement import (
    annotator_pseudonyms,
    item_ids,
    item_records,
    item_shapes,
    label_decisions,
    report_categories,
    report_fingerprint,
)
from annotation.services.reports.aggregate import LABEL_SOURCES, aggregated_labels, votes_frame
from annotation.services.reports.agreement import agreement_section
from annotation.services.reports.counts import SentenceLabels, sentence_counts
from annotation.services.reports.estimates import aggregation_section
from annotation.services.reports.methods import check_method, majority_estimates, method_aggregate
from annotation.services.reports.tables import (
    labelled_sentences,
    record_sentences,
    sentence_tables,
)
from core.models import User

if TYPE_CHECKING:
    import pandas as pd

REPORT_VERSION = 1


@dataclass
class ComputedReport:
    data: dict
    figure_svg: str
    fingerprint: str
    started_at: object
    seconds: float


def _quiet(progress: float, message: str = "") -> None:
    return None


def labelled_records(project: Project, labels: dict[int, list[list[str]]]) -> list[dict]:
    """CHOCOLATE-style records of the items that have labels, in project order."""
    if not labels:
        return []
    records = []
    for pk, external_id, sentences, model, dataset, split, _image, _url in item_records(project):
        item_labels = labels.get(pk)
        if item_labels is None or len(item_labels) != len(sentences):
            continue
        records.append(
            {
                "_id": external_id,
                "sentences": sentences,
                "labels": item_labels,
                "model": model,
                "dataset": dataset,
                "split": split,
            }
        )
    return records


def _annotator_names(pseudonyms: dict[int, str]) -> dict[str, str]:
    usernames = dict(User.objects.filter(pk__in=pseudonyms).values_list("pk", "username"))
    return {pseudonym: usernames.get(pk, "") for pk, pseudonym in pseudonyms.items()}


def _from_annotators(
    project: Project,
    *,
    categories: list,
    pseudonyms: dict,
    include_excluded: bool,
    method: str,
    progress: Callable[[float, str], None],
    notes: list,
    summary: dict,
) -> tuple[dict | None, SentenceLabels | None, dict]:
    """Agreement, the aggregated labels and the aggregation part, from the annotators' labels."""
    keys = [c.key for c in categories]
    progress(0.05, "Reading labels")
    decisions = label_decisions(project, categories=keys, include_excluded=include_excluded)
    if decisions.unknown_keys:
        notes.append(
            "Label sets use categories the project no longer has, left out: "
            + ", ".join(sorted(decisions.unknown_keys))
        )
    progress(0.3, "Aggregating by majority vote")
    # Counted once: agreement, majority vote and the dataset tables read the same counts.
    counts = sentence_counts(decisions) if len(decisions) and keys else None
    if counts is None and len(decisions):
        votes_frame(decisions, tie=project.tie_rule)  # says what the counts cannot stand for
    progress(0.4, "Computing agreement")
    overlap = project.overlap()
    # Adaptive overlap: kappa on every item's first k_min label sets (see agreement_section).
    agreement = agreement_section(
        decisions,
        counts,
        k=overlap.floor,
        categories=categories,
        pseudonyms=pseudonyms,
        external_ids=lambda ids: item_ids(project, ids=ids),
        first=overlap.k_min if overlap.adaptive else None,
    )
    progress(0.55, f"Aggregating by {METHODS[method]}")
    labels = None
    if method == "majority" and counts is not None:
        estimates = majority_estimates(decisions)
        labels = counts.labels(project.tie_rule)
    else:
        result = method_aggregate(decisions, method=method, tie=project.tie_rule)
        estimates = result.estimates
        if len(result.frame):
            labels = SentenceLabels.from_frame(result.frame, keys)
        del result
    summary.update(
        label_sets=decisions.label_sets,
        annotators=len(set(decisions.rater.tolist())),
        items_labelled=len(sorted_unique(labels.item)) if labels is not None else 0,
        items_complete=agreement["items_complete"] if agreement else 0,
    )
    # The labels are all that is left to read: what the rest takes fits where these were.
    del decisions, counts
    aggregation = aggregation_section(project, method, estimates, labels, pseudonyms=pseudonyms)
    return agreement, labels, aggregation


def _sentences(
    project: Project, aggregated: SentenceLabels | dict | None, categories: list
) -> pd.DataFrame | None:
    """The sentence frame of the dataset tables, from aggregated or reference labels."""
    if aggregated is None:
        return None
    if isinstance(aggregated, SentenceLabels):
        return labelled_sentences(item_shapes(project), aggregated, categories)
    return record_sentences(labelled_records(project, aggregated), categories)


def _overlap_summary(overlap) -> dict:
    return {
        "policy": overlap.policy,
        "k_min": overlap.k_min,
        "k_max": overlap.k_max,
        "rule": overlap.rule,
        "threshold": overlap.threshold,
    }


def report_compute(
    *,
    project: Project,
    labels: str = "annotators",
    include_excluded: bool = False,
    progress: Callable[[float, str], None] = _quiet,
    method: str | None = None,
) -> ComputedReport:
    """Compute the whole report of ``project`` over the chosen labels.

    ``method`` aggregates the annotators' labels instead of the project's
    aggregation method (for an export; the stored snapshot uses the project's).
    """
    if labels not in LABEL_SOURCES:
        raise ValueError(f"unknown label source {labels!r}; use annotators or reference")
    started_at = timezone.now()
    clock = time.monotonic()
    fingerprint = report_fingerprint(project, labels=labels, include_excluded=include_excluded)
    categories = report_categories(project)
    pseudonyms = annotator_pseudonyms(project)
    notes = []
    agreement = None
    summary = {"items": Item.objects.filter(project=project).count()}

    aggregation = None
    if labels == "annotators":
        agreement, aggregated, aggregation = _from_annotators(
            project,
            categories=categories,
            pseudonyms=pseudonyms,
            include_excluded=include_excluded,
            method=check_method(method or project.aggregation_method),
            progress=progress,
            notes=notes,
            summary=summary,
        )
    else:
        aggregated = aggregated_labels(project, labels="reference")
        summary.update(items_labelled=len(aggregated))
    progress(0.75, "Building the dataset tables")
    sentences = _sentences(project, aggregated, categories)
    summary["sentences"] = len(sentences) if sentences is not None else 0
    tables, figure = sentence_tables(sentences, categories)
    if tables is None:
        notes.append(
            "No item has labels from annotators yet."
            if labels == "annotators"
            else "No item has reference labels."
        )
    names = _annotator_names(pseudonyms) if labels == "annotators" else {}
    data = {
        "version": REPORT_VERSION,
        "project": project.slug,
        "title": project.title,
        "labels": labels,
        "include_excluded": include_excluded,
        "tie_rule": project.tie_rule,
        "k": project.overlap().floor,  # k_min under adaptive overlap: what kappa counts
        "overlap": _overlap_summary(project.overlap()),
        "computed_at": timezone.now().isoformat(),
        "categories": [{"key": c.key, "name": c.name, "factual": c.factual} for c in categories],
        "summary": summary,
        "agreement": agreement,
        "aggregation": aggregation,
        "tables": tables,
        "notes": notes,
        # Only for the researcher's page; exports leave it out.
        "annotator_names": names,
    }
    progress(1.0, "Done")
    return ComputedReport(
        data=data,
        figure_svg=figure,
        fingerprint=fingerprint,
        started_at=started_at,
        seconds=time.monotonic() - clock,
    )
