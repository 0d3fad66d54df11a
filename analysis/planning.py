"""How many participants a chart study needs: precision of HMI intervals and power of pairs.

Every chart of a CHARTOM-style study is shown to every included participant, so
one number n serves all charts; what varies per chart is its HMI p.

Precision
    The half-width of the 95% Wilson interval (Wilson 1927, as in
    :func:`analysis.hmi.wilson_interval`) with an observed proportion p of n:

        h(n, p) = z / (1 + z^2/n) * sqrt(p (1 - p) / n + z^2 / (4 n^2))

    It is largest at p = 0.5 (the worst case) and falls with n.
Power
    A pair's manipulated and non-manipulated charts are answered by the same
    people, so the two HMIs are compared with McNemar's test on the discordant
    pairs. The closed-form power and sample size are Connor's (1987), "Sample
    size for testing differences in proportions for the paired-sample design",
    Biometrics 43:207-211:

        power = Phi( (sqrt(n) |delta| - z_{a/2} sqrt(psi)) / sqrt(psi - delta^2) )
        n     = (z_{a/2} sqrt(psi) + z_b sqrt(psi - delta^2))^2 / delta^2

    with delta = p_manipulated - p_plain and psi the proportion of discordant
    pairs (wrong on one chart, right on the other). Without a pilot, psi is taken
    as if the two answers were independent, psi = p1 (1 - p2) + p2 (1 - p1):
    answers of one person correlate positively, which lowers psi and raises
    power, so this errs on the side of recruiting more.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = [
    "discordance_independent",
    "mcnemar_power",
    "mcnemar_power_simulated",
    "n_for_half_width",
    "n_for_power",
    "plan_cost",
    "recruit_for",
    "wilson_half_width",
]


def _z(confidence: float) -> float:
    from scipy import stats

    if not 0 < confidence < 1:
        raise ValueError("confidence must be strictly between 0 and 1")
    return float(stats.norm.ppf(0.5 + confidence / 2))


def wilson_half_width(n, p, confidence: float = 0.95):
    """Half-width of the Wilson interval for proportion ``p`` of ``n`` (formula above).

    Scalars give a float, arrays an array; n = 0 gives NaN.
    """
    z = _z(confidence)
    n_arr = np.asarray(n, dtype=float)
    p_arr = np.asarray(p, dtype=float)
    if np.any(n_arr < 0) or np.any((p_arr < 0) | (p_arr > 1)):
        raise ValueError("need n >= 0 and 0 <= p <= 1")
    with np.errstate(divide="ignore", invalid="ignore"):
        half = z / (1 + z**2 / n_arr) * np.sqrt(p_arr * (1 - p_arr) / n_arr + z**2 / (4 * n_arr**2))
    half = np.where(n_arr == 0, np.nan, half)
    return float(half) if half.ndim == 0 else half


def n_for_half_width(target: float, p: float = 0.5, confidence: float = 0.95) -> int:
    """The smallest n whose Wilson half-width at proportion ``p`` is at most ``target``.

    Squaring h(n, p) = target with q = p (1 - p) gives the quadratic

        t^2 n^2 + (2 t^2 z^2 - z^2 q) n + t^2 z^4 - z^4 / 4 = 0,

    whose larger root is rounded up; h falls with n, so a step either way then
    checks the rounding.
    """
    if not 0 < target < 0.5:
        raise ValueError("the target half-width must be between 0 and 0.5")
    if not 0 <= p <= 1:
        raise ValueError("p must be between 0 and 1")
    z = _z(confidence)
    q = p * (1 - p)
    a = target**2
    b = 2 * target**2 * z**2 - z**2 * q
    c = target**2 * z**4 - z**4 / 4
    n = max(1, math.ceil((-b + math.sqrt(b * b - 4 * a * c)) / (2 * a) - 1e-9))
    while n > 1 and wilson_half_width(n - 1, p, confidence) <= target:
        n -= 1
    while wilson_half_width(n, p, confidence) > target:
        n += 1
    return n


def discordance_independent(p_plain, p_manipulated):
    """psi when a person's two answers are independent: p1 (1 - p2) + p2 (1 - p1)."""
    p1, p2 = np.asarray(p_plain, dtype=float), np.asarray(p_manipulated, dtype=float)
    psi = p1 * (1 - p2) + p2 * (1 - p1)
    return float(psi) if psi.ndim == 0 else psi


def _check_pair(p_plain, p_manipulated, discordance):
    delta = p_manipulated - p_plain
    psi = discordance_independent(p_plain, p_manipulated) if discordance is None else discordance
    # Discordant cells are p10 = (psi + delta) / 2 and p01 = (psi - delta) / 2.
    if not abs(delta) <= psi <= min(1.0, p_plain + p_manipulated, 2 - p_plain - p_manipulated):
        raise ValueError("the discordant proportion is impossible for these two HMIs")
    return delta, psi


def mcnemar_power(n, p_plain: float, p_manipulated: float, *, discordance=None, alpha=0.05):
    """Connor's (1987) power of the two-sided McNemar test with n pairs (see the module)."""
    from scipy import stats

    delta, psi = _check_pair(p_plain, p_manipulated, discordance)
    n_arr = np.asarray(n, dtype=float)
    z_a = _z(1 - alpha)
    if delta == 0 or psi == delta**2:
        power = np.full(n_arr.shape, alpha if delta == 0 else 1.0)
    else:
        power = stats.norm.cdf(
            (np.sqrt(n_arr) * abs(delta) - z_a * math.sqrt(psi)) / math.sqrt(psi - delta**2)
        )
    return float(power) if np.ndim(power) == 0 else power


def n_for_power(
    power: float, p_plain: float, p_manipulated: float, *, discordance=None, alpha=0.05
) -> int | None:
    """Connor's (1987) number of pairs for ``power`` (None when the HMIs are equal)."""
    from scipy import stats

    if not 0 < power < 1:
        raise ValueError("power must be strictly between 0 and 1")
    delta, psi = _check_pair(p_plain, p_manipulated, discordance)
    if delta == 0:
        return None
    z_a, z_b = _z(1 - alpha), float(stats.norm.ppf(power))
    n = (z_a * math.sqrt(psi) + z_b * math.sqrt(psi - delta**2)) ** 2 / delta**2
    return max(1, math.ceil(n - 1e-9))


def mcnemar_power_simulated(
    n: int,
    p_plain: float,
    p_manipulated: float,
    *,
    discordance=None,
    alpha: float = 0.05,
    reps: int = 20000,
    seed: int = 0,
) -> float:
    """Power of the same test by simulation: the check on :func:`mcnemar_power`.

    Draws the 2x2 table of n pairs from the multinomial with discordant cells
    p10 = (psi + delta) / 2 and p01 = (psi - delta) / 2 and counts how often the
    uncorrected McNemar statistic (b - c)^2 / (b + c) exceeds the chi-square(1)
    critical value: statsmodels' ``mcnemar(exact=False, correction=False)``,
    vectorised over the replications.
    """
    from scipy import stats

    delta, psi = _check_pair(p_plain, p_manipulated, discordance)
    p10, p01 = (psi + delta) / 2, (psi - delta) / 2
    rng = np.random.default_rng(seed)
    cells = rng.multinomial(n, [p10, p01, 1 - p10 - p01], size=reps)
    b, c = cells[:, 0].astype(float), cells[:, 1].astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        statistic = np.where(b + c > 0, (b - c) ** 2 / (b + c), 0.0)
    return float(np.mean(statistic > stats.chi2.ppf(1 - alpha, 1)))


def recruit_for(included: int, exclusion_rate: float) -> int:
    """Participants to recruit so that ``included`` remain after the expected exclusions."""
    if not 0 <= exclusion_rate < 1:
        raise ValueError("the exclusion rate must be at least 0 and below 1")
    return math.ceil(included / (1 - exclusion_rate) - 1e-9)


def plan_cost(included: int, exclusion_rate: float, pay: float) -> dict:
    """{included, recruit, cost}: every recruited participant is paid, excluded ones too."""
    if pay < 0:
        raise ValueError("pay must not be negative")
    recruit = recruit_for(included, exclusion_rate)
    return {"included": included, "recruit": recruit, "cost": round(recruit * pay, 2)}


def plan_precision(target: float, priors=(0.5,), confidence: float = 0.95) -> dict:
    """Included participants for every chart to reach ``target``, from prior HMIs.

    Every participant answers every chart, so the study needs the largest n of
    any chart: the chart whose prior HMI is nearest 0.5. Returns {included,
    limiting_hmi}.
    """
    priors = [float(p) for p in priors] or [0.5]
    limiting = min(priors, key=lambda p: abs(p - 0.5))
    return {"included": n_for_half_width(target, limiting, confidence), "limiting_hmi": limiting}


def plan_power(power: float, pairs, *, alpha: float = 0.05) -> dict:
    """Included participants for every pair's McNemar test to reach ``power``.

    ``pairs`` is a list of (name, p_plain, p_manipulated). Pairs with equal HMIs
    have no sample size and are listed apart. Returns {included, limiting,
    per_pair: [{name, p_plain, p_manipulated, n}], no_effect: [names]}.
    """
    per_pair, no_effect = [], []
    for name, p1, p2 in pairs:
        n = n_for_power(power, p1, p2, alpha=alpha)
        if n is None:
            no_effect.append(name)
        else:
            per_pair.append({"name": name, "p_plain": p1, "p_manipulated": p2, "n": n})
    if not per_pair:
        raise ValueError("every pair has the same HMI on both charts: there is no effect to detect")
    limiting = max(per_pair, key=lambda row: row["n"])
    return {
        "included": limiting["n"],
        "limiting": limiting,
        "per_pair": per_pair,
        "no_effect": no_effect,
    }


def worst_case_pair(effect: float) -> tuple[float, float]:
    """The two HMIs with difference ``effect`` that need the most participants.

    Under independence psi = p1 (1 - p2) + p2 (1 - p1) is largest when
    p1 + p2 = 1, so the pair straddles 0.5: (0.5 - effect/2, 0.5 + effect/2).
    """
    if not 0 < effect < 1:
        raise ValueError("the effect must be a difference of HMIs between 0 and 1")
    return 0.5 - effect / 2, 0.5 + effect / 2


def precision_curve(ns, p: float = 0.5, confidence: float = 0.95):
    """Half-width against n at HMI ``p`` (arrays for a plot)."""
    ns = np.asarray(ns, dtype=int)
    return ns, wilson_half_width(ns, p, confidence)


def power_curve(ns, p_plain: float, p_manipulated: float, alpha: float = 0.05):
    """Connor's power against n for one pair (arrays for a plot)."""
    ns = np.asarray(ns, dtype=int)
    return ns, np.atleast_1d(mcnemar_power(ns, p_plain, p_manipulated, alpha=alpha))
