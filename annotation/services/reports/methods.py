"""Labels aggregated by the project's (or a chosen) method, with posteriors and annotator estimates.

The models are in :mod:`analysis.aggregation`; here each category's decisions
become (sentence, annotator, 0/1) triples and the results go back to item and
sentence ids and pseudonymous annotator ids.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from analysis.aggregation import METHODS, aggregate_encoded, encode
from analysis.arrays import sorted_unique
from annotation.selectors.agreement import LabelDecisions
from annotation.services.reports.counts import SENTENCE_BITS, SENTENCE_MASK, sentence_code

if TYPE_CHECKING:
    import pandas as pd

FRAME_COLUMNS = ["item", "sentence", "category", "value", "p_positive"]
ESTIMATE_COLUMNS = ["rater", "category", "sensitivity", "specificity"]


@dataclass
class MethodResult:
    """``frame``: one row per (item, sentence, category) with the label and P(label = 1);
    ``estimates``: one row per (annotator, category) with sensitivity and specificity."""

    method: str
    frame: pd.DataFrame
    estimates: pd.DataFrame


def check_method(method: str) -> str:
    if method not in METHODS:
        raise ValueError(f"unknown aggregation method {method!r}; use one of {', '.join(METHODS)}")
    return method


def method_aggregate(decisions: LabelDecisions, *, method: str, tie: str) -> MethodResult:
    """Aggregate every category of ``decisions`` with ``method`` (majority keeps ``tie``)."""
    import pandas as pd

    check_method(method)
    if not len(decisions):
        return MethodResult(
            method, pd.DataFrame(columns=FRAME_COLUMNS), pd.DataFrame(columns=ESTIMATE_COLUMNS)
        )
    code = sentence_code(decisions.item, decisions.sentence)
    # Every category has the same sentences and annotators: coded (and checked) once.
    encoded = encode(code, decisions.rater, decisions.marks[:, 0].astype(np.int64))
    tasks, codes, values, p_positive, estimates = [], [], [], [], []
    for j, key in enumerate(decisions.categories):
        labels = decisions.marks[:, j].astype(np.int64)
        result = aggregate_encoded(method, replace(encoded, labels=labels), tie=tie)
        tasks.append(result.tasks)
        codes.append(np.full(len(result.tasks), j))
        values.append(result.labels.astype(bool))
        p_positive.append(result.p_positive)
        estimates.append(
            pd.DataFrame(
                {
                    "rater": result.workers,
                    "category": key,
                    "sensitivity": result.sensitivity,
                    "specificity": result.specificity,
                }
            )
        )
    # One frame from arrays sorted by item, sentence and category position: a frame per
    # category, concatenated and sorted through its key strings, cost several times more.
    tasks, codes = np.concatenate(tasks), np.concatenate(codes)
    order = np.lexsort((codes, tasks & SENTENCE_MASK, tasks >> SENTENCE_BITS))
    tasks = tasks[order]
    frame = pd.DataFrame(
        {
            "item": tasks >> SENTENCE_BITS,
            "sentence": tasks & SENTENCE_MASK,
            # Categorical, as in the votes: 700,000 strings would each become a str cell.
            "category": pd.Categorical.from_codes(codes[order], categories=decisions.categories),
            "value": np.concatenate(values)[order],
            "p_positive": np.concatenate(p_positive)[order],
        }
    )
    return MethodResult(method, frame, pd.concat(estimates, ignore_index=True))


def majority_estimates(decisions: LabelDecisions) -> pd.DataFrame:
    """Majority vote estimates nothing per annotator: each (annotator, category) is NaN."""
    import pandas as pd

    raters = sorted_unique(decisions.rater)
    width = len(decisions.categories)
    return pd.DataFrame(
        {
            "rater": np.tile(raters, width),
            "category": np.repeat(np.array(decisions.categories, dtype=object), len(raters)),
            "sensitivity": np.full(width * len(raters), np.nan),
            "specificity": np.full(width * len(raters), np.nan),
        }
    )


def per_item(frame: pd.DataFrame, keys: list[str]) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """{item id: (labels, P(label = 1))}, each a sentences x categories array in ``keys`` order.

    Arrays per item rather than a dict per (item, sentence, category): an export of
    100,000 sentences stays a few megabytes. A cell no annotator decided is NaN.
    """
    import pandas as pd

    if frame.empty:
        return {}
    order = {key: j for j, key in enumerate(keys)}
    items = frame["item"].to_numpy(dtype=np.int64)
    sentences = frame["sentence"].to_numpy(dtype=np.int64)
    codes = frame["category"].astype(str).map(order).to_numpy()
    known = ~pd.isna(codes)
    items, sentences = items[known], sentences[known]
    codes = codes[known].astype(np.int64)
    values = frame["value"].to_numpy(dtype=float)[known]
    p_positive = frame["p_positive"].to_numpy(dtype=float)[known]
    ranked = np.argsort(items, kind="stable")
    unique, starts = np.unique(items[ranked], return_index=True)
    result = {}
    for item, rows in zip(unique.tolist(), np.split(ranked, starts[1:]), strict=True):
        shape = (int(sentences[rows].max()) + 1, len(keys))
        labels, posterior = np.full(shape, np.nan), np.full(shape, np.nan)
        labels[sentences[rows], codes[rows]] = values[rows]
        posterior[sentences[rows], codes[rows]] = p_positive[rows]
        result[item] = (labels, posterior)
    return result
