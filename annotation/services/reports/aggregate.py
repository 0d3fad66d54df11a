"""Aggregated labels: the annotators' majority vote, or the imported reference labels.

Both sources end as the same thing, ``{item id: one list of category keys per
sentence}``, which the dataset tables and the CHOCOLATE export consume.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.captions import majority_vote
from annotation.models import Project
from annotation.selectors.agreement import (
    LabelDecisions,
    label_decisions,
    reference_labels,
    report_categories,
)

LABEL_SOURCES = ("annotators", "reference")


def votes_frame(decisions: LabelDecisions, *, tie: str) -> pd.DataFrame:
    """``majority_vote`` over the decisions: one row per (item, sentence, category)."""
    if not len(decisions):
        return pd.DataFrame(
            columns=["item", "sentence", "category", "value", "n_raters", "n_positive"]
        )
    return majority_vote(decisions.frame(), tie=tie)


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


def aggregated_labels(
    project: Project, *, labels: str = "annotators", include_excluded: bool = False
) -> dict[int, list[list[str]]]:
    """Labels per item id from the chosen source; items without labels are absent."""
    if labels not in LABEL_SOURCES:
        raise ValueError(f"unknown label source {labels!r}; use annotators or reference")
    if labels == "reference":
        return reference_labels(project)
    categories = [c.key for c in report_categories(project)]
    decisions = label_decisions(project, categories=categories, include_excluded=include_excluded)
    return labels_from_votes(votes_frame(decisions, tie=project.tie_rule), categories)
