"""Dawid-Skene for two classes: one 2x2 confusion matrix per worker, fitted by EM.

Dawid and Skene (1979), "Maximum likelihood estimation of observer error-rates
using the EM algorithm", Applied Statistics 28(1), 20-28. The steps follow
crowd-kit 1.4.2's ``DawidSkene`` (see the package docstring for why it is not
imported) so that both give the same numbers on the same data:

* start from the majority vote's share of positive votes per task;
* M-step: errors[w, k, c] = sum over w's tasks of P(truth = c) where w said k,
  floored at 1e-10 for the answers k that w gave at all, then normalised over k;
* E-step: P(truth = c | answers) proportional to prior[c] * prod errors[w, k, c];
* stop after 100 iterations or when the evidence lower bound per label grows
  by less than 1e-5.
"""

from __future__ import annotations

import numpy as np

EPS = 1e-10
N_ITER = 100
TOL = 1e-5

__all__ = ["fit_dawid_skene"]


def _m_step(data, probas: np.ndarray, observed: np.ndarray) -> np.ndarray:
    """Confusion matrices errors[w, answer, truth], each truth column summing to 1."""
    n_workers = len(data.workers)
    # bincount over worker * 2 + answer: np.add.at does the same many times slower.
    cell = data.worker_index * 2 + data.labels
    counts = np.stack(
        [
            np.bincount(cell, weights=probas[data.task_index, truth], minlength=2 * n_workers)
            for truth in (0, 1)
        ],
        axis=1,
    ).reshape(n_workers, 2, 2)
    # An answer a worker never gave stays at 0, as in crowd-kit, where it has no row.
    errors = np.where(observed[:, :, None], np.maximum(counts, EPS), 0.0)
    return errors / errors.sum(axis=1, keepdims=True)


def _log_answers(data, errors: np.ndarray) -> np.ndarray:
    """log errors[w, answer, :] for every triple.

    The log is taken on the small matrix, then indexed; answers a worker never
    gave (probability 0) are never indexed, so they are set to 1 to avoid log 0.
    """
    logs = np.log(np.where(errors > 0, errors, 1.0)).reshape(-1, 2)
    return logs[data.worker_index * 2 + data.labels]


def _e_step(data, priors: np.ndarray, errors: np.ndarray) -> np.ndarray:
    """Posterior over the truth per task, computed in logs and shifted to avoid underflow."""
    n_tasks = len(data.tasks)
    answers = _log_answers(data, errors)
    log_likelihood = np.log(np.maximum(priors, EPS)) + np.column_stack(
        [np.bincount(data.task_index, weights=answers[:, c], minlength=n_tasks) for c in (0, 1)]
    )
    scaled = np.exp(log_likelihood - log_likelihood.max(axis=1, keepdims=True))
    return scaled / scaled.sum(axis=1, keepdims=True)


def _evidence_lower_bound(data, probas, priors, errors) -> float:
    """E_q[log p(answers, truth)] + H(q), q the posterior, as crowd-kit computes it."""
    log_joint = _log_answers(data, errors) + np.log(np.maximum(priors, EPS))
    expectation = float((probas[data.task_index] * log_joint).sum())
    clipped = np.maximum(probas, EPS)
    return expectation - float((clipped * np.log(clipped)).sum())


def fit_dawid_skene(
    data, *, initial: np.ndarray, n_iter: int = N_ITER, tol: float = TOL
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Fit on encoded triples (``analysis.aggregation.encode``) from ``initial`` P(1) per task.

    Returns P(truth = 1) per task, and per worker the sensitivity
    errors[w, 1, 1] and specificity errors[w, 0, 0].
    """
    observed = np.zeros((len(data.workers), 2), dtype=bool)
    observed[data.worker_index, data.labels] = True
    probas = np.column_stack([1.0 - initial, initial])
    priors = probas.mean(axis=0)
    errors = _m_step(data, probas, observed)
    loss = -np.inf
    for _ in range(n_iter):
        probas = _e_step(data, priors, errors)
        priors = probas.mean(axis=0)
        errors = _m_step(data, probas, observed)
        new_loss = _evidence_lower_bound(data, probas, priors, errors) / len(data.labels)
        if new_loss - loss < tol:
            break
        loss = new_loss
    return probas[:, 1], errors[:, 1, 1], errors[:, 0, 0]
