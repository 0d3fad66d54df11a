"""Precision-targeted stopping: when a study has measured every chart's HMI well enough.

The rule: after each participant, stop recruiting once every chart's 95% Wilson
interval has a half-width of at most ``target``, but never before ``min_n`` and
always at ``max_n`` included participants.

Stopping when the data look precise is optional stopping, and optional stopping
can bias intervals. Here the stopping statistic is the interval's width, which
depends on the observed HMI only through p (1 - p): a chart near 0.5 is the last
to become precise and, with 112 charts, some chart nearly always sits there, so
n is in effect fixed by the design rather than by where an estimate happens to
fall. :func:`simulate_precision_stopping` measures what is left: the coverage of
the intervals reported at the stop, against the known truth.
"""

from __future__ import annotations

import numpy as np

from analysis.hmi import wilson_interval
from analysis.planning import n_for_half_width, wilson_half_width

__all__ = ["precision_status", "precision_stop", "simulate_precision_stopping"]


def precision_status(n_wrong, n, target: float, confidence: float = 0.95) -> dict:
    """Per chart: the current half-width and the included participants still needed.

    ``n_wrong`` and ``n`` are per-chart counts over included participants. The
    projection puts the observed HMI into :func:`analysis.planning.n_for_half_width`
    (0.5, the worst case, for a chart nobody answered yet).

    Returns {"half_width": array, "still_needed": array of int, "met": bool}.
    """
    n_wrong = np.asarray(n_wrong, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(n > 0, n_wrong / np.maximum(n, 1), 0.5)
    half = wilson_half_width(n, p, confidence)
    needed = np.array(
        [
            max(0, n_for_half_width(target, float(pi), confidence) - int(ni))
            for pi, ni in zip(p, n, strict=True)
        ],
        dtype=int,
    )
    met = bool(len(n)) and bool(np.all(np.nan_to_num(half, nan=1.0) <= target))
    return {"half_width": np.atleast_1d(half), "still_needed": needed, "met": met}


def precision_stop(
    n_wrong, n, *, included: int, target: float, min_n: int, max_n: int | None
) -> str | None:
    """Why the study should stop now ("precision" or "max"), or None to keep recruiting."""
    if max_n is not None and included >= max_n:
        return "max"
    if included < max(min_n, 1):
        return None
    return "precision" if precision_status(n_wrong, n, target)["met"] else None


def _stop_index(half: np.ndarray, target: float, min_n: int, max_n: int) -> int:
    # half: (max_n, charts) half-widths after 1..max_n participants.
    ok = np.all(half <= target, axis=1)
    ok[: max(min_n, 1) - 1] = False
    hits = np.flatnonzero(ok)
    return int(hits[0]) + 1 if len(hits) else max_n


def simulate_precision_stopping(
    true_hmi,
    *,
    target: float,
    min_n: int,
    max_n: int,
    seeds: int,
    fixed_n: int | None = None,
    participant_sd: float = 0.7,
    seed: int = 0,
) -> dict:
    """Run the rule on simulated studies whose charts have the known HMIs ``true_hmi``.

    Each included participant answers every chart; their errors are correlated
    across charts through an ability drawn from N(0, participant_sd^2) on the
    log-odds scale (the CHARTOM model of :mod:`analysis.simulate`), with each
    chart's log-odds set so its population error rate is exactly ``true_hmi``.
    For each simulated study the rule is applied after every participant.

    Returns arrays per seed (n_used, max_half_width, covered fraction of charts)
    and, with ``fixed_n``, the same for a fixed design of that many participants,
    plus the pooled coverage of both (charts x seeds).
    """
    from scipy.optimize import brentq
    from scipy.special import expit

    truth = np.asarray(true_hmi, dtype=float)
    nodes, weights = np.polynomial.hermite_e.hermegauss(60)
    weights = weights / weights.sum()

    def population(eta):
        return float(expit(eta - participant_sd * nodes) @ weights)

    # One root per distinct HMI: Table 1 has 28 for its 112 charts.
    distinct, back = np.unique(truth, return_inverse=True)
    roots = [brentq(lambda e, t=t: population(e) - t, -30, 30) for t in distinct]
    eta = np.asarray(roots)[back]
    rng = np.random.default_rng(seed)
    size = max(max_n, fixed_n or 0)
    out = {"n_used": [], "max_half_width": [], "coverage": [], "fixed_max_half_width": []}
    out["fixed_coverage"] = []
    steps = np.arange(1, size + 1)[:, None]
    for _ in range(seeds):
        ability = rng.normal(0, participant_sd, size)
        wrong = rng.random((size, len(truth))) < expit(eta[None, :] - ability[:, None])
        cum = np.cumsum(wrong, axis=0)
        half = wilson_half_width(steps, cum / steps)
        for prefix, n_stop in (
            ("", _stop_index(half[:max_n], target, min_n, max_n)),
            ("fixed_", fixed_n),
        ):
            if n_stop is None:
                continue
            low, high = wilson_interval(cum[n_stop - 1], n_stop)
            if not prefix:
                out["n_used"].append(n_stop)
            out[prefix + "max_half_width"].append(float(half[n_stop - 1].max()))
            out[prefix + "coverage"].append(float(np.mean((low <= truth) & (truth <= high))))
    result = {key: np.array(values) for key, values in out.items()}
    result["pooled_coverage"] = float(result["coverage"].mean())
    if fixed_n:
        result["fixed_pooled_coverage"] = float(result["fixed_coverage"].mean())
    return result
