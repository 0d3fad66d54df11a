"""MACE (Multi-Annotator Competence Estimation) for two classes, variational Bayes.

Hovy, Berg-Kirkpatrick, Vaswani and Hovy (2013), "Learning whom to trust with
MACE", NAACL-HLT, 1120-1130. Each worker either knows the answer and gives the
truth, or spams and answers from their own distribution theta over the labels;
the truth is uniform over the labels. The steps follow crowd-kit 1.4.2's
``MACE`` defaults (see the package docstring for why it is not imported):
variational M-step with Beta(0.5, 0.5) on spamming and Dirichlet(10, 10) on
theta, 50 iterations, initial parameters uniform on [1, 2.5] and normalised,
drawn from ``numpy.random.RandomState(seed)``. crowd-kit's 10 restarts all reuse
the same seed and so end identical: one run here gives the same result.
Workers and labels are indexed in sorted order (crowd-kit indexes its initial
draws by order of appearance, and its strategy counts by sorted order: both
agree when the data's first rows list workers in sorted order and label 0 first).
"""

from __future__ import annotations

import numpy as np

N_ITER = 50
ALPHA = 0.5  # Beta prior weight on spamming
BETA = 0.5  # Beta prior weight on knowing
STRATEGY_PRIOR = 10.0
DEFAULT_NOISE = 0.5

__all__ = ["fit_mace"]


def _initial(seed: int, shape: tuple[int, int]) -> np.ndarray:
    """Rows drawn uniform on [1, 1 + 1 + noise] and normalised, as scipy's uniform(1, 1.5) draws."""
    values = np.random.RandomState(seed).uniform(0.0, 1.0, shape) * (1 + DEFAULT_NOISE) + 1
    return values / values.sum(axis=1, keepdims=True)


def _variational_normalize(counts: np.ndarray, priors: np.ndarray) -> np.ndarray:
    """exp(digamma(count + prior)) / exp(digamma(sum of row)): the mean-field update."""
    from scipy.special import digamma

    norm = np.exp(digamma((counts + priors).sum(axis=1)))
    return np.exp(digamma(counts + priors)) / norm[:, None]


def _e_step(data, spam: np.ndarray, theta: np.ndarray):
    """Marginals of the truth per task and expected spamming/knowing and strategy counts.

    ``spam[w] = (P(spamming), P(knowing))``; ``theta[w, k]`` = P(says k | spamming).
    """
    t, w, y = data.task_index, data.worker_index, data.labels
    spam_w = spam[w]
    spamming_answer = spam_w[:, 0] * theta[w, y]
    columns = []
    for truth in (0, 1):
        factor = spamming_answer + spam_w[:, 1] * (y == truth)
        # A product per task as exp of a sum of logs (factors are > 0): bincount is
        # many times faster than np.multiply.at, and differs by rounding only.
        column = np.exp(np.bincount(t, weights=np.log(factor), minlength=len(data.tasks)))
        columns.append(column / 2)
    gold = np.column_stack(columns)
    instance = gold.sum(axis=1)
    strategy = np.zeros(len(y))
    for truth in (0, 1):
        strategy += gold[t, truth] / (spamming_answer + spam_w[:, 1] * (y == truth))
    strategy *= spamming_answer / instance[t]
    knowing = gold[t, y] * spam_w[:, 1] / (spamming_answer + spam_w[:, 1]) / instance[t]
    n_workers = len(data.workers)
    strategy_counts = np.bincount(w * 2 + y, weights=strategy, minlength=2 * n_workers).reshape(
        n_workers, 2
    )
    knowing_counts = np.column_stack(
        [
            np.bincount(w, weights=strategy, minlength=n_workers),
            np.bincount(w, weights=knowing, minlength=n_workers),
        ]
    )
    return gold, strategy_counts, knowing_counts


def fit_mace(
    data, *, seed: int = 0, n_iter: int = N_ITER
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Fit on encoded triples (``analysis.aggregation.encode``).

    Returns P(truth = 1) per task, and per worker the sensitivity
    P(knowing) + P(spamming) theta[1] and specificity P(knowing) + P(spamming) theta[0].
    """
    n_workers = len(data.workers)
    spam = _initial(seed, (n_workers, 2))
    theta = _initial(seed, (n_workers, 2))
    spam_prior = np.tile([ALPHA, BETA], (n_workers, 1))
    strategy_prior = np.full((n_workers, 2), STRATEGY_PRIOR)
    gold, strategy_counts, knowing_counts = _e_step(data, spam, theta)
    for _ in range(n_iter):
        spam = _variational_normalize(knowing_counts, spam_prior)
        theta = _variational_normalize(strategy_counts, strategy_prior)
        gold, strategy_counts, knowing_counts = _e_step(data, spam, theta)
    p_positive = gold[:, 1] / gold.sum(axis=1)
    sensitivity = spam[:, 1] + spam[:, 0] * theta[:, 1]
    specificity = spam[:, 1] + spam[:, 0] * theta[:, 0]
    return p_positive, sensitivity, specificity
