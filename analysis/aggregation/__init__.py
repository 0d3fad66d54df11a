"""Binary label aggregation: majority vote, Dawid-Skene and MACE over (task, worker, label) triples.

One call per category: each triple says that ``worker`` gave ``label`` (1 = the
category applies, 0 = it does not) to ``task`` (a sentence). The result holds one
posterior P(label = 1) and one aggregated 0/1 label per task, and for the models
each worker's estimated sensitivity P(says 1 | truth 1) and specificity
P(says 0 | truth 0).

Written here rather than imported from crowd-kit, which implements the same
models: crowd-kit pulls transformers, nltk and scikit-learn, far too heavy for
the web and worker processes. crowd-kit 1.4.2 stays a dev-only dependency and
the tests check these functions against it to 1e-6 with the same
initialisation, iteration counts, tolerance and smoothing. No Django import.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from analysis.aggregation.dawid_skene import fit_dawid_skene
from analysis.aggregation.mace import fit_mace
from analysis.arrays import has_duplicates

TIE_RULES = ("negative", "positive")

# Registry: method key -> the label a researcher sees. Order is the order of the choices.
METHODS = {
    "majority": "Majority vote",
    "dawid_skene": "Dawid-Skene",
    "mace": "MACE",
}

__all__ = [
    "METHODS",
    "TIE_RULES",
    "BinaryAggregation",
    "Encoded",
    "aggregate_binary",
    "aggregate_encoded",
    "encode",
]


@dataclass(frozen=True)
class BinaryAggregation:
    """Aggregated labels of one category.

    ``tasks`` and ``workers`` are sorted unique ids; ``p_positive`` and ``labels``
    follow ``tasks``, ``sensitivity`` and ``specificity`` follow ``workers``
    (NaN where the method estimates none, as for majority vote).
    """

    method: str
    tasks: np.ndarray
    p_positive: np.ndarray
    labels: np.ndarray
    workers: np.ndarray
    sensitivity: np.ndarray
    specificity: np.ndarray


@dataclass(frozen=True)
class Encoded:
    """Triples as integer codes into sorted unique task and worker ids."""

    tasks: np.ndarray
    workers: np.ndarray
    task_index: np.ndarray
    worker_index: np.ndarray
    labels: np.ndarray


def encode(task_ids: Sequence, worker_ids: Sequence, labels: Sequence) -> Encoded:
    """Check the triples and code tasks and workers by their rank among the sorted unique ids."""
    task_ids = np.asarray(task_ids)
    worker_ids = np.asarray(worker_ids)
    values = np.asarray(labels)
    if not (len(task_ids) == len(worker_ids) == len(values)):
        raise ValueError(
            f"task_ids, worker_ids and labels must have equal lengths, got "
            f"{len(task_ids)}, {len(worker_ids)} and {len(values)}"
        )
    if values.size and not np.isin(values, (0, 1)).all():
        raise ValueError("labels must be 0 or 1")
    tasks, task_index = np.unique(task_ids, return_inverse=True)
    workers, worker_index = np.unique(worker_ids, return_inverse=True)
    pairs = task_index.astype(np.int64) * max(len(workers), 1) + worker_index
    if has_duplicates(pairs):
        raise ValueError("a worker labelled the same task more than once")
    return Encoded(tasks, workers, task_index, worker_index, values.astype(np.int64))


def _majority(data: Encoded, tie: str) -> tuple[np.ndarray, np.ndarray]:
    """Share of positive votes per task, and the label by the project's tie rule.

    Same rule as ``analysis.captions.majority_vote``: positive when
    2 n_positive > n (tie "negative") or >= n (tie "positive").
    """
    n = np.bincount(data.task_index, minlength=len(data.tasks))
    positive = np.bincount(data.task_index, weights=data.labels, minlength=len(data.tasks))
    if tie == "negative":
        labels = 2 * positive > n
    else:
        labels = 2 * positive >= n
    return positive / n, labels.astype(np.int64)


def aggregate_binary(
    method: str,
    task_ids: Sequence,
    worker_ids: Sequence,
    labels: Sequence,
    *,
    seed: int = 0,
    tie: str = "negative",
) -> BinaryAggregation:
    """Aggregate one category's 0/1 labels with ``method`` (a key of :data:`METHODS`).

    ``tie`` decides a split majority vote (the project's tie rule); the models'
    labels are P(label = 1) > 0.5. ``seed`` fixes MACE's random initialisation.
    Raises ValueError for an unknown method or tie rule, unequal lengths, labels
    other than 0/1, or a worker labelling a task twice.
    """
    return aggregate_encoded(method, encode(task_ids, worker_ids, labels), seed=seed, tie=tie)


def aggregate_encoded(
    method: str, data: Encoded, *, seed: int = 0, tie: str = "negative"
) -> BinaryAggregation:
    """:func:`aggregate_binary` on triples :func:`encode` has checked and coded already.

    Categories of one project share their tasks and workers: encoded once, each
    category is ``dataclasses.replace(data, labels=...)`` with its own 0/1 labels.
    """
    if method not in METHODS:
        raise ValueError(f"unknown aggregation method {method!r}; use one of {', '.join(METHODS)}")
    if tie not in TIE_RULES:
        raise ValueError(f"unknown tie rule {tie!r}; use 'negative' or 'positive'")
    n_workers = len(data.workers)
    undefined = np.full(n_workers, np.nan)
    if not len(data.labels):
        empty = np.array([], dtype=float)
        return BinaryAggregation(
            method, data.tasks, empty, empty.astype(np.int64), data.workers, empty, empty
        )
    share, majority_labels = _majority(data, tie)
    if method == "majority":
        return BinaryAggregation(
            method, data.tasks, share, majority_labels, data.workers, undefined, undefined.copy()
        )
    if method == "dawid_skene":
        p_positive, sensitivity, specificity = fit_dawid_skene(data, initial=share)
    else:
        p_positive, sensitivity, specificity = fit_mace(data, seed=seed)
    labels_out = (p_positive > 0.5).astype(np.int64)
    return BinaryAggregation(
        method, data.tasks, p_positive, labels_out, data.workers, sensitivity, specificity
    )
