"""Human Misleadingness Index (HMI) and the CHARTOM statistics around it.

Definitions follow the CHARTOM paper (seed 000): HMI in section 4.2, the group
summary in Table 1, the chi-square test and the log odds ratio in section 5 and
the mixed-effects logistic model in Appendix C.

Input frames
------------
trials
    One row per included participant x chart they were assigned: participant,
    chart_id, correct (True / False / missing = unanswered).
charts
    chart_id, group, question, version (1 non-manipulated, 2 manipulated),
    chart_type, answer_type, manipulation.
trials_with_meta
    trials joined with charts (see :func:`attach_chart_meta`).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy import stats
from scipy.special import expit

MIXED_ESTIMATOR = "BinomialBayesMixedGLM (variational Bayes)"
GEE_ESTIMATOR = "GEE (exchangeable, participant clusters)"

_TRIAL_COLUMNS = ("participant", "chart_id", "correct")
_CHART_COLUMNS = ("chart_id", "group", "question", "version")
_META_COLUMNS = ("participant", "chart_id", "correct", "group", "question", "version")


# --------------------------------------------------------------------------- helpers


def _natural_key(value) -> tuple:
    # "G2" before "G10", as in the paper's tables.
    parts = re.split(r"(\d+)", str(value))
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in parts if p != "")


def _natural_sorted(values) -> list:
    return sorted(values, key=_natural_key)


def _require(frame: pd.DataFrame, columns, name: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{name} is missing column(s) {missing}")


def _is_correct(correct: pd.Series) -> np.ndarray:
    """True where the answer is correct; unanswered (missing) counts as not correct."""
    values = pd.Series(correct).astype(object)
    answered = values.notna()
    given = values[answered]
    # 1 == True and 0 == False, so 0/1 codings pass; anything else is a data bug
    # that must not silently become "wrong".
    invalid = ~given.isin([True, False])
    if invalid.any():
        examples = list(dict.fromkeys(given[invalid].tolist()))[:3]
        raise ValueError(f"correct must be True, False or missing; got {examples}")
    out = np.zeros(len(values), dtype=bool)
    out[answered.to_numpy()] = given.eq(True).to_numpy(dtype=bool)
    return out


def _versions(version: pd.Series) -> np.ndarray:
    numeric = pd.to_numeric(pd.Series(version), errors="coerce")
    if not numeric.isin([1, 2]).all():
        raise ValueError("version must be 1 (non-manipulated) or 2 (manipulated)")
    return numeric.to_numpy(dtype=int)


def _join_unique(values: pd.Series) -> str | None:
    present = [str(v) for v in dict.fromkeys(values.dropna()) if str(v) != ""]
    return " / ".join(present) if present else None


def _prepared(trials_with_meta: pd.DataFrame) -> pd.DataFrame:
    frame = pd.DataFrame(trials_with_meta)
    _require(frame, _META_COLUMNS, "trials_with_meta")
    if frame.duplicated(["participant", "chart_id"]).any():
        raise ValueError("each participant may answer each chart at most once")
    out = pd.DataFrame(
        {
            "participant": frame["participant"].astype(str).to_numpy(),
            "group": frame["group"].astype(str).to_numpy(),
            "question": frame["question"].astype(str).to_numpy(),
            "version": _versions(frame["version"]),
            "error": (~_is_correct(frame["correct"])).astype(float),
        }
    )
    out["manipulation"] = frame["manipulation"].to_numpy() if "manipulation" in frame else None
    return out


def _group_manipulation(frame: pd.DataFrame, group) -> str | None:
    rows = frame[(frame["group"] == group) & (frame["version"] == 2)]
    return _join_unique(rows["manipulation"])


# --------------------------------------------------------------------------- intervals


def wilson_interval(successes, n, confidence: float = 0.95):
    """Wilson score interval for a binomial proportion.

    With p = successes / n and z the (1 + confidence) / 2 normal quantile:

        centre    = (p + z^2 / (2n)) / (1 + z^2 / n)
        halfwidth = z / (1 + z^2 / n) * sqrt(p (1 - p) / n + z^2 / (4 n^2))

    Source: E. B. Wilson (1927), "Probable inference, the law of succession, and
    statistical inference", JASA 22:209-212. Unlike the Wald interval it stays
    inside [0, 1] and keeps its width at p = 0 or 1, which matters for HMI
    values near 0 on non-manipulated charts.

    Scalars give a ``(low, high)`` tuple of floats; arrays give a tuple of
    arrays. ``n == 0`` gives ``(nan, nan)``.
    """
    if not 0 < confidence < 1:
        raise ValueError("confidence must be strictly between 0 and 1")
    s_in = np.asarray(successes, dtype=float)
    n_in = np.asarray(n, dtype=float)
    scalar = s_in.ndim == 0 and n_in.ndim == 0
    s, total = np.broadcast_arrays(s_in, n_in)
    if np.any(total < 0) or np.any(s < 0) or np.any(s > total):
        raise ValueError("need 0 <= successes <= n")
    z = stats.norm.ppf(0.5 + confidence / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = s / total
        denominator = 1 + z**2 / total
        centre = (p + z**2 / (2 * total)) / denominator
        half = z / denominator * np.sqrt(p * (1 - p) / total + z**2 / (4 * total**2))
    # Rounding can leave 1e-17 outside [0, 1] at the boundaries.
    low = np.where(s == 0, 0.0, np.clip(centre - half, 0.0, 1.0))
    high = np.where(s == total, 1.0, np.clip(centre + half, 0.0, 1.0))
    low = np.where(total == 0, np.nan, low)
    high = np.where(total == 0, np.nan, high)
    if scalar:
        return float(low), float(high)
    return low, high


# --------------------------------------------------------------------------- HMI


def attach_chart_meta(trials: pd.DataFrame, charts: pd.DataFrame) -> pd.DataFrame:
    """Join trials to the chart catalogue; every trial's chart must be in it."""
    trials = pd.DataFrame(trials)
    charts = pd.DataFrame(charts)
    _require(trials, _TRIAL_COLUMNS, "trials")
    _require(charts, _CHART_COLUMNS, "charts")
    if charts["chart_id"].duplicated().any():
        raise ValueError("charts has duplicate chart_id values")
    unknown = set(trials["chart_id"]) - set(charts["chart_id"])
    if unknown:
        raise ValueError(f"trials refer to unknown chart(s) {_natural_sorted(unknown)[:5]}")
    meta = charts.drop(columns=[c for c in charts.columns if c in trials and c != "chart_id"])
    return trials.merge(meta, on="chart_id", how="left", validate="many_to_one")


def chart_hmi(trials: pd.DataFrame, *, chart_ids=None, confidence: float = 0.95) -> pd.DataFrame:
    """Human Misleadingness Index of each chart with a Wilson interval.

        HMI(chart) = n_wrong / n

    where n is the number of included participants assigned the chart and
    n_wrong those who did not answer its FACT question correctly; an
    unanswered question counts as not correct. Source: CHARTOM paper, section
    4.2 ("the percent of our study population who did not give a correct
    answer on the FACT question"). The interval is :func:`wilson_interval` on
    n_wrong of n.

    ``trials`` must already be restricted to included participants. Pass
    ``chart_ids`` to report charts nobody answered: they get n = 0, HMI NaN
    and a note rather than an invented value.

    Returns chart_id, n, n_wrong, n_unanswered, hmi, ci_low, ci_high, note.
    """
    trials = pd.DataFrame(trials)
    _require(trials, _TRIAL_COLUMNS, "trials")
    if trials.duplicated(["participant", "chart_id"]).any():
        raise ValueError("each participant may appear at most once per chart")
    wrong = ~_is_correct(trials["correct"])
    scored = pd.DataFrame(
        {
            "chart_id": trials["chart_id"].to_numpy(),
            "wrong": wrong.astype(int),
            "unanswered": trials["correct"].isna().to_numpy().astype(int),
        }
    )
    counts = scored.groupby("chart_id", sort=False).agg(
        n=("wrong", "size"), n_wrong=("wrong", "sum"), n_unanswered=("unanswered", "sum")
    )
    ids = _natural_sorted(counts.index) if chart_ids is None else list(dict.fromkeys(chart_ids))
    if chart_ids is not None:
        extra = set(counts.index) - set(ids)
        if extra:
            raise ValueError(f"trials refer to chart(s) not in chart_ids: {_natural_sorted(extra)}")
    counts = counts.reindex(ids, fill_value=0)
    n = counts["n"].to_numpy(dtype=int)
    n_wrong = counts["n_wrong"].to_numpy(dtype=int)
    low, high = wilson_interval(n_wrong, n, confidence)
    with np.errstate(divide="ignore", invalid="ignore"):
        hmi = np.where(n > 0, n_wrong / np.maximum(n, 1), np.nan)
    return pd.DataFrame(
        {
            "chart_id": ids,
            "n": n,
            "n_wrong": n_wrong,
            "n_unanswered": counts["n_unanswered"].to_numpy(dtype=int),
            "hmi": hmi,
            "ci_low": low,
            "ci_high": high,
            "note": [None if k > 0 else "no included participant answered this chart" for k in n],
        }
    )


def group_table(hmi_frame: pd.DataFrame, charts: pd.DataFrame) -> pd.DataFrame:
    """Mean HMI per manipulation group, non-manipulated vs manipulated (CHARTOM Table 1).

        HMI(group, version) = mean of HMI(chart) over the group's charts of that version

    Source: CHARTOM paper, Table 1 ("HMI score averaged across various
    manipulation groups"). Charts without an HMI (n = 0) are left out of the
    mean and of the chart count rather than counted as 0.

    Returns group, chart_type, answer_type, hmi_non_manipulated,
    n_charts_non_manipulated, manipulation, hmi_manipulated,
    n_charts_manipulated, note; groups in natural order (G2 before G10).
    """
    hmi_frame = pd.DataFrame(hmi_frame)
    charts = pd.DataFrame(charts)
    _require(hmi_frame, ("chart_id", "hmi"), "hmi_frame")
    _require(charts, ("chart_id", "group", "version"), "charts")
    unknown = set(hmi_frame["chart_id"]) - set(charts["chart_id"])
    if unknown:
        raise ValueError(f"hmi_frame has chart(s) not in charts: {_natural_sorted(unknown)[:5]}")
    merged = charts.merge(hmi_frame[["chart_id", "hmi"]], on="chart_id", how="left")
    merged["version"] = _versions(merged["version"])
    for column in ("chart_type", "answer_type", "manipulation"):
        if column not in merged:
            merged[column] = None

    rows = []
    for group in _natural_sorted(merged["group"].unique()):
        part = merged[merged["group"] == group]
        plain = part.loc[part["version"] == 1, "hmi"].dropna()
        manipulated = part.loc[part["version"] == 2, "hmi"].dropna()
        notes = []
        if plain.empty:
            notes.append("no non-manipulated chart with an HMI")
        if manipulated.empty:
            notes.append("no manipulated chart with an HMI")
        rows.append(
            {
                "group": group,
                "chart_type": _join_unique(part["chart_type"]),
                "answer_type": _join_unique(part["answer_type"]),
                "hmi_non_manipulated": plain.mean() if len(plain) else np.nan,
                "n_charts_non_manipulated": len(plain),
                "manipulation": _join_unique(part.loc[part["version"] == 2, "manipulation"]),
                "hmi_manipulated": manipulated.mean() if len(manipulated) else np.nan,
                "n_charts_manipulated": len(manipulated),
                "note": "; ".join(notes) or None,
            }
        )
    columns = [
        "group",
        "chart_type",
        "answer_type",
        "hmi_non_manipulated",
        "n_charts_non_manipulated",
        "manipulation",
        "hmi_manipulated",
        "n_charts_manipulated",
        "note",
    ]
    return pd.DataFrame(rows, columns=columns)


# --------------------------------------------------------------------------- chi-square


def _chi_square_row(part: pd.DataFrame, correction: bool) -> dict:
    plain = part.loc[part["version"] == 1, "error"]
    manipulated = part.loc[part["version"] == 2, "error"]
    e_n, e_m = int(plain.sum()), int(manipulated.sum())
    table = ((e_n, len(plain) - e_n), (e_m, len(manipulated) - e_m))
    row = {
        "n_non_manipulated": len(plain),
        "errors_non_manipulated": e_n,
        "n_manipulated": len(manipulated),
        "errors_manipulated": e_m,
        "table": table,
        "chi2": np.nan,
        "dof": np.nan,
        "p_value": np.nan,
        "yates_correction": False,
        "message": None,
    }
    observed = np.array(table)
    empty_rows = [
        name
        for name, total in zip(("non-manipulated", "manipulated"), observed.sum(1), strict=True)
        if total == 0
    ]
    empty_cols = [
        name
        for name, total in zip(("error", "correct"), observed.sum(0), strict=True)
        if total == 0
    ]
    if empty_rows or empty_cols:
        reasons = [f"no {name} trials" for name in empty_rows]
        reasons += [
            f"every trial was {'correct' if name == 'error' else 'an error'}" for name in empty_cols
        ]
        row["message"] = "chi-square undefined: " + "; ".join(reasons)
        return row
    result = stats.chi2_contingency(observed, correction=correction)
    row.update(
        chi2=float(result.statistic),
        dof=int(result.dof),
        p_value=float(result.pvalue),
        # scipy applies Yates only when dof == 1, which a 2x2 table always has.
        yates_correction=bool(correction and result.dof == 1),
    )
    return row


def chi_square_manipulation(
    trials_with_meta: pd.DataFrame, *, correction: bool = True
) -> pd.DataFrame:
    """Chi-square test of error rate on manipulated vs non-manipulated charts.

    The 2x2 table is [[errors, correct] on non-manipulated,
    [errors, correct] on manipulated] trials; the statistic is Pearson's

        chi2 = sum over cells of (|O - E| - c)^2 / E,   E = row total x column total / N

    with c = 0.5 (Yates' continuity correction) when ``correction`` is true,
    else c = 0, on 1 degree of freedom (``scipy.stats.chi2_contingency``). The
    CHARTOM paper (section 5.1) reports a chi-square test of manipulated vs
    non-manipulated accuracy without naming a correction; Yates is the default
    here because it is scipy's default and errs on the conservative side when
    a group has few errors (HMI near 0 on plain charts). Unanswered counts as
    an error, as in HMI.

    The test treats trials as independent although each participant answers
    many charts; :func:`log_odds_by_group` models that dependence.

    Returns one row for all trials (scope "overall", group None) and one per
    group: scope, group, n_non_manipulated, errors_non_manipulated,
    n_manipulated, errors_manipulated, table, chi2, dof, p_value,
    yates_correction, message. Where a row or column of the table is empty the
    test is undefined: the numbers are NaN and ``message`` says why.
    """
    frame = _prepared(trials_with_meta)
    rows = [{"scope": "overall", "group": None, **_chi_square_row(frame, correction)}]
    for group in _natural_sorted(frame["group"].unique()):
        part = frame[frame["group"] == group]
        rows.append({"scope": "group", "group": group, **_chi_square_row(part, correction)})
    columns = [
        "scope",
        "group",
        "n_non_manipulated",
        "errors_non_manipulated",
        "n_manipulated",
        "errors_manipulated",
        "table",
        "chi2",
        "dof",
        "p_value",
        "yates_correction",
        "message",
    ]
    return pd.DataFrame(rows, columns=columns)


# --------------------------------------------------------------------------- log odds


_LOG_ODDS_COLUMNS = [
    "group",
    "manipulation",
    "estimator",
    "n_trials",
    "p_n",
    "p_m",
    "log_odds_ratio",
    "se",
    "ci_low",
    "ci_high",
    "interval",
    "message",
]


def _degenerate_reason(part: pd.DataFrame) -> str | None:
    for version, name in ((1, "non-manipulated"), (2, "manipulated")):
        errors = part.loc[part["version"] == version, "error"]
        if errors.empty:
            return f"no {name} trials"
        if errors.min() == errors.max():
            kind = "an error" if errors.iloc[0] == 1 else "correct"
            return (
                f"every {name} answer was {kind}, so its log-odds is unbounded; "
                "group left out of the model fit"
            )
    return None


def _cell_rows(
    estimator: str,
    groups: list,
    beta: dict,
    cov: dict,
    z: float,
    interval: str,
    message: str | None,
) -> dict:
    """Turn cell log-odds (beta) and their covariances into per-group rows."""
    rows = {}
    for group in groups:
        b_n, b_m = beta[(group, 1)], beta[(group, 2)]
        var = cov[(group, 1, 1)] + cov[(group, 2, 2)] - 2 * cov[(group, 1, 2)]
        log_or = b_m - b_n
        se = float(np.sqrt(var)) if var >= 0 else np.nan
        if not (np.isfinite(log_or) and np.isfinite(se)):
            rows[group] = {"estimator": estimator, "message": "fit gave non-finite estimates"}
            continue
        rows[group] = {
            "estimator": estimator,
            "p_n": float(expit(b_n)),
            "p_m": float(expit(b_m)),
            "log_odds_ratio": float(log_or),
            "se": se,
            "ci_low": float(log_or - z * se),
            "ci_high": float(log_or + z * se),
            "interval": interval,
            "message": message,
        }
    return rows


def _convergence_message(caught, label: str) -> str | None:
    """Turn caught ConvergenceWarnings into a row message; pass every other warning on."""
    from statsmodels.tools.sm_exceptions import ConvergenceWarning

    message = None
    for record in caught:
        if issubclass(record.category, ConvergenceWarning):
            if message is None:
                message = f"{label}: {record.message}; estimates may be unreliable"
        else:
            warnings.warn_explicit(record.message, record.category, record.filename, record.lineno)
    return message


def _fit_mixed(
    data: pd.DataFrame,
    groups: list,
    seed: int,
    fe_prior_sd: float,
    z: float,
    confidence: float,
    max_iterations: int | None,
) -> dict:
    # Imported here: statsmodels is slow to import and most callers never fit a model.
    from statsmodels.genmod.bayes_mixed_glm import BinomialBayesMixedGLM
    from statsmodels.tools.sm_exceptions import ConvergenceWarning

    model = BinomialBayesMixedGLM.from_formula(
        "error ~ 0 + C(cell)",
        {"participant": "0 + C(participant)", "group:question": "0 + C(group_question)"},
        data,
        vcp_p=1.0,
        fe_p=fe_prior_sd,
    )
    options = {"maxiter": max_iterations} if max_iterations is not None else None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        result = model.fit_vb(rng=np.random.default_rng(seed), minim_opts=options)
    message = _convergence_message(caught, "variational Bayes fit did not converge")
    names = list(model.fep_names)
    beta, cov = {}, {}
    for group in groups:
        for version in (1, 2):
            index = names.index(f"C(cell)[{_cell_code(group, version)}]")
            beta[(group, version)] = float(result.fe_mean[index])
            cov[(group, version, version)] = float(result.fe_sd[index] ** 2)
        # Mean-field VB factorises the posterior, so the two cells are independent.
        cov[(group, 1, 2)] = 0.0
    interval = f"{confidence:.0%} credible interval from the normal VB posterior; se is its SD"
    return _cell_rows(MIXED_ESTIMATOR, groups, beta, cov, z, interval, message)


def _fit_gee(
    data: pd.DataFrame,
    groups: list,
    z: float,
    confidence: float,
    max_iterations: int | None,
) -> dict:
    import statsmodels.api as sm
    from statsmodels.tools.sm_exceptions import ConvergenceWarning

    exog = pd.get_dummies(data["cell"], dtype=float)
    model = sm.GEE(
        data["error"].to_numpy(),
        exog,
        groups=data["participant"].to_numpy(),
        family=sm.families.Binomial(),
        cov_struct=sm.cov_struct.Exchangeable(),
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        kwargs = {"maxiter": max_iterations} if max_iterations is not None else {}
        result = model.fit(**kwargs)
    message = _convergence_message(caught, "GEE did not converge")
    params = pd.Series(np.asarray(result.params), index=exog.columns)
    robust = pd.DataFrame(np.asarray(result.cov_params()), index=exog.columns, columns=exog.columns)
    beta, cov = {}, {}
    for group in groups:
        n_code, m_code = _cell_code(group, 1), _cell_code(group, 2)
        beta[(group, 1)] = float(params[n_code])
        beta[(group, 2)] = float(params[m_code])
        cov[(group, 1, 1)] = float(robust.loc[n_code, n_code])
        cov[(group, 2, 2)] = float(robust.loc[m_code, m_code])
        cov[(group, 1, 2)] = float(robust.loc[n_code, m_code])
    interval = f"{confidence:.0%} Wald interval with the robust (sandwich) se"
    return _cell_rows(GEE_ESTIMATOR, groups, beta, cov, z, interval, message)


def _cell_code(group, version: int) -> str:
    return f"{group}|v{version}"


def log_odds_by_group(
    trials_with_meta: pd.DataFrame,
    *,
    seed: int = 0,
    confidence: float = 0.95,
    fe_prior_sd: float = 5.0,
    include_gee: bool = True,
    max_iterations: int | None = None,
) -> pd.DataFrame:
    """Log odds ratio of an error on manipulated vs non-manipulated charts, per group.

        log(OR) = log( (p_m / (1 - p_m)) / (p_n / (1 - p_n)) )

    (CHARTOM paper, section 5.2, equation 1), where p_m and p_n are the model's
    error probabilities for the group's manipulated and non-manipulated cells.
    They come from the paper's model (Appendix C)

        glmer(error ~ group_id:manipulation_type + (1 | student_id)
              + (1 | group_id:question_id), family = binomial)

    fitted as ``statsmodels`` ``BinomialBayesMixedGLM`` by variational Bayes:
    one fixed log-odds beta per group x version cell, no intercept, and crossed
    random intercepts for participant and for group:question (``vc_formulas``).
    p = expit(beta) for each cell, i.e. the estimated marginal mean at random
    effects 0 as emmeans reports for glmer, so log(OR) = beta_m - beta_n.
    Under the mean-field approximation the two cells are independent a
    posteriori: se = sqrt(sd_m^2 + sd_n^2) is the posterior SD and the interval
    is a normal credible interval. Mean-field VB is known to understate
    posterior spread, so these intervals are on the narrow side.

    Fixed effects get a N(0, fe_prior_sd^2) prior. It is wide so that cell means
    stay close to glmer's maximum-likelihood estimates, which the paper
    reports; the statsmodels default of 2 would noticeably pull rare-error
    cells (HMI 0.02 is a log-odds of -3.9) toward 0.5. ``seed`` fixes the VB
    starting values, so the same data and seed give the same numbers.

    As a sensitivity check (``include_gee``) the same cell-coded model is fitted
    by GEE (binomial, logit link, exchangeable correlation within participant,
    robust sandwich se, Wald interval; Liang & Zeger 1986). GEE estimates
    population-averaged probabilities, so its log(OR) is closer to 0 than the
    participant-conditional mixed-model one; signs should agree.

    A group with a cell that is all errors or all correct (or empty) has an
    unbounded cell log-odds; it is left out of both fits and reported with NaN
    and a ``message``. A fit that raises gives every group NaN and a message;
    one that does not report convergence keeps its numbers and says so.

    Returns one row per group and estimator: group, manipulation, estimator,
    n_trials, p_n, p_m, log_odds_ratio, se, ci_low, ci_high, interval, message.
    """
    if not 0 < confidence < 1:
        raise ValueError("confidence must be strictly between 0 and 1")
    if not fe_prior_sd > 0:
        raise ValueError("fe_prior_sd must be positive")
    frame = _prepared(trials_with_meta)
    z = float(stats.norm.ppf(0.5 + confidence / 2))
    groups = _natural_sorted(frame["group"].unique())
    estimators = [MIXED_ESTIMATOR] + ([GEE_ESTIMATOR] if include_gee else [])

    base = {}
    usable = []
    for group in groups:
        part = frame[frame["group"] == group]
        reason = _degenerate_reason(part)
        base[group] = {
            "group": group,
            "manipulation": _group_manipulation(frame, group),
            "n_trials": len(part),
            "message": reason,
        }
        if reason is None:
            usable.append(group)

    results: dict[str, dict] = {name: {} for name in estimators}
    if usable:
        data = frame[frame["group"].isin(usable)].reset_index(drop=True)
        data["cell"] = [
            _cell_code(g, v) for g, v in zip(data["group"], data["version"], strict=True)
        ]
        data["group_question"] = data["group"] + ":" + data["question"]
        fitters = {
            MIXED_ESTIMATOR: lambda: _fit_mixed(
                data, usable, seed, fe_prior_sd, z, confidence, max_iterations
            ),
            GEE_ESTIMATOR: lambda: _fit_gee(data, usable, z, confidence, max_iterations),
        }
        for name in estimators:
            # A singular or otherwise failed fit must become a row message, since a
            # researcher's analysis page should never crash on awkward data.
            try:
                results[name] = fitters[name]()
            except Exception as exc:
                failure = f"model fit failed: {type(exc).__name__}: {exc}"
                results[name] = {g: {"estimator": name, "message": failure} for g in usable}

    rows = []
    for group in groups:
        for name in estimators:
            row = dict.fromkeys(_LOG_ODDS_COLUMNS, np.nan)
            row.update(base[group])
            row["estimator"] = name
            row["interval"] = None
            row.update(results[name].get(group, {}))
            rows.append(row)
    return pd.DataFrame(rows, columns=_LOG_ODDS_COLUMNS)


# --------------------------------------------------------------------------- Kendall


class KendallResult(NamedTuple):
    tau: float
    p_value: float


def kendall_tau(ranking_a, ranking_b) -> KendallResult:
    """Kendall's rank correlation between two rankings (or scores) of groups.

        tau_b = (C - D) / sqrt((C + D + T_a) (C + D + T_b))

    with C concordant and D discordant pairs and T_a, T_b pairs tied only in a
    or only in b (Kendall 1938, 1945; ``scipy.stats.kendalltau``, variant "b",
    which equals tau_a when there are no ties). The CHARTOM paper (section 5.2)
    reports tau = 0.60 between the human and LLM rankings of 14 manipulations
    by log odds ratio. Scores work as well as ranks since only order matters.

    Mappings and Series are aligned by key (group); sequences by position.
    Raises ValueError on mismatched keys or lengths, or fewer than 2 items.
    """
    keyed_a = isinstance(ranking_a, Mapping | pd.Series)
    keyed_b = isinstance(ranking_b, Mapping | pd.Series)
    if keyed_a != keyed_b:
        raise ValueError("pass two keyed rankings (dict / Series) or two sequences")
    if keyed_a:
        a = pd.Series(ranking_a, dtype=float)
        b = pd.Series(ranking_b, dtype=float)
        if a.index.has_duplicates or b.index.has_duplicates:
            raise ValueError("ranking keys must be unique")
        if set(a.index) != set(b.index):
            only_a = _natural_sorted(set(a.index) - set(b.index))
            only_b = _natural_sorted(set(b.index) - set(a.index))
            raise ValueError(f"ranking keys differ: only in a {only_a}, only in b {only_b}")
        keys = list(a.index)
        x, y = a.to_numpy(), b.loc[keys].to_numpy()
    else:
        x = np.asarray(ranking_a, dtype=float)
        y = np.asarray(ranking_b, dtype=float)
        if x.ndim != 1 or y.ndim != 1 or len(x) != len(y):
            raise ValueError("rankings must be one-dimensional and of equal length")
    if len(x) < 2:
        raise ValueError("Kendall's tau needs at least 2 items")
    if np.isnan(x).any() or np.isnan(y).any():
        raise ValueError("rankings must not contain missing values")
    with warnings.catch_warnings():
        # A constant ranking has no defined tau; scipy warns and returns nan, which we keep.
        warnings.simplefilter("ignore", RuntimeWarning)
        warnings.simplefilter("ignore", stats.ConstantInputWarning)
        result = stats.kendalltau(x, y)
    return KendallResult(tau=float(result.statistic), p_value=float(result.pvalue))
