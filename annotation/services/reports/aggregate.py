"""Aggregated labels: the annotators' labels aggregated by a method, or the imported reference labels.

Both sources end as the same thing, ``{item id: one list of category keys per
sentence}``, which the dataset tables and the CHOCOLATE export consume. The
method is the project's ``aggregation_method`` unless one is chosen; majority
vote reads the same votes as the agreement statistics.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from analysis.captions import majority_vote
from annotation.models import Project
from annotation.selectors.agreement import (
    LabelDecisions,
    label_decisions,
    reference_labels,
    report_categories,
)
from annotation.services.reports.counts import sentence_counts
from annotation.services.reports.methods import (
    check_method,
    method_aggregate,
    per_item,
)
from core.errors import ServiceError

if TYPE_CHECKING:
    import pandas as pd

LABEL_SOURCES = ("annotators", "reference")
UNKNOWN_LABEL_SOURCE = "Unknown label source “{value}”; use one of: {allowed}."


def check_label_source(value: str | None) -> str | None:
    """``value`` if it names a label source (or is None), else a 400 naming those there are."""
    if value is not None and value not in LABEL_SOURCES:
        raise ServiceError(
            UNKNOWN_LABEL_SOURCE.format(value=value, allowed=", ".join(LABEL_SOURCES)),
            code="unknown_label_source",
            errors={"labels": [f"Use one of: {', '.join(LABEL_SOURCES)}."]},
        )
    return value


def votes_frame(decisions: LabelDecisions, *, tie: str) -> pd.DataFrame:
    """``majority_vote`` over the decisions: one row per (item, sentence, category)."""
    import pandas as pd

    if not len(decisions):
        return pd.DataFrame(
            columns=["item", "sentence", "category", "value", "n_raters", "n_positive"]
        )
    counts = sentence_counts(decisions) if decisions.categories else None
    # Anything the counts cannot stand for (a rater twice on a sentence, no categories)
    # goes through majority_vote, which says what is wrong.
    if counts is None:
        return majority_vote(decisions.frame(), tie=tie)
    return counts.votes(
        tie, item_dtype=decisions.item.dtype, sentence_dtype=decisions.sentence.dtype
    )


def labels_from_votes(votes: pd.DataFrame, categories: list[str]) -> dict[int, list[list[str]]]:
    """Turn the vote frame back into label lists, keys in category order."""
    if votes.empty:
        return {}
    sentences = votes[["item", "sentence"]].drop_duplicates()
    lengths = sentences.groupby("item", sort=False)["sentence"].max() + 1
    result = {int(item): [[] for _ in range(int(n))] for item, n in lengths.items()}
    positive = votes.loc[votes["value"].to_numpy(dtype=bool), ["item", "sentence", "category"]]
    order = {key: j for j, key in enumerate(categories)}
    codes = positive["category"].map(order).to_numpy()
    ranked = np.lexsort((codes, positive["sentence"].to_numpy(), positive["item"].to_numpy()))
    items = positive["item"].to_numpy()[ranked]
    sentence_index = positive["sentence"].to_numpy()[ranked]
    keys = positive["category"].astype(str).to_numpy()[ranked]
    for item, sentence, key in zip(items.tolist(), sentence_index.tolist(), keys, strict=True):
        result[item][sentence].append(key)
    return result


def method_frame(decisions: LabelDecisions, *, project: Project, method: str) -> pd.DataFrame:
    """item, sentence, category, value (and for models p_positive) aggregated by ``method``."""
    if method == "majority":
        # The very votes the agreement statistics and earlier exports used.
        votes = votes_frame(decisions, tie=project.tie_rule)
        return votes.assign(p_positive=votes["n_positive"] / votes["n_raters"])
    return method_aggregate(decisions, method=method, tie=project.tie_rule).frame


def _annotator_frame(project: Project, *, include_excluded: bool, method: str | None):
    method = check_method(method or project.aggregation_method)
    categories = [c.key for c in report_categories(project)]
    decisions = label_decisions(project, categories=categories, include_excluded=include_excluded)
    return method_frame(decisions, project=project, method=method), categories


def aggregated_labels(
    project: Project,
    *,
    labels: str = "annotators",
    include_excluded: bool = False,
    method: str | None = None,
) -> dict[int, list[list[str]]]:
    """Labels per item id from the chosen source; items without labels are absent.

    ``method`` (annotators' labels only) defaults to the project's aggregation method.
    """
    if labels not in LABEL_SOURCES:
        raise ValueError(f"unknown label source {labels!r}; use annotators or reference")
    if labels == "reference":
        return reference_labels(project)
    frame, categories = _annotator_frame(project, include_excluded=include_excluded, method=method)
    return labels_from_votes(frame, categories)


def aggregated_with_posteriors(
    project: Project, *, include_excluded: bool = False, method: str | None = None
) -> tuple[dict[int, list[list[str]]], dict[int, tuple[np.ndarray, np.ndarray]], list[str]]:
    """The annotators' labels of :func:`aggregated_labels`, and per item the arrays of
    :func:`~annotation.services.reports.methods.per_item` (sentences x categories: label
    and P(label = 1); for majority vote the share of annotators who marked it), and the keys."""
    frame, categories = _annotator_frame(project, include_excluded=include_excluded, method=method)
    return labels_from_votes(frame, categories), per_item(frame, categories), categories
