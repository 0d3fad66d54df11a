"""Per-group log odds ratios of an error on manipulated vs non-manipulated charts.

The log odds ratio is the CHARTOM paper's (seed 000) measure of how strongly a
manipulation misleads a population (section 5.2, equation 1). The cell
probabilities come from the mixed-effects logistic model of Appendix C, fitted
here by variational Bayes, with a GEE fit (Liang & Zeger 1986) as a sensitivity
check. Kendall's tau (Kendall 1938) compares two rankings of the groups, as the
paper does for humans against LLMs (section 5.2, Figure 4).

Input: ``trials_with_meta``, one row per included participant x chart they
were assigned, with participant, chart_id, correct (True / False / missing =
unanswered), group, question, version (1 non-manipulated, 2 manipulated) and
optionally manipulation (see :func:`analysis.hmi.attach_chart_meta`).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from analysis.tables import join_unique, natural_key, natural_sorted, trial_errors

if TYPE_CHECKING:
    import pandas as pd

MIXED_ESTIMATOR = "BinomialBayesMixedGLM (variational Bayes)"
GEE_ESTIMATOR = "GEE (exchangeable, participant clusters)"


# --------------------------------------------------------------------------- log odds


# The columns of every log odds table (mixed, GEE and empirical fits alike).
LOG_ODDS_COLUMNS = [
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


def _group_manipulation(frame: pd.DataFrame, group) -> str | None:
    rows = frame[(frame["group"] == group) & (frame["version"] == 2)]
    return join_unique(rows["manipulation"])


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
    from scipy.special import expit

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
    import pandas as pd
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


def _group_base(frame: pd.DataFrame, group) -> dict:
    """The columns of a group's rows that do not depend on the fit; ``message`` says why not fitted."""
    part = frame[frame["group"] == group]
    return {
        "group": group,
        "manipulation": _group_manipulation(frame, group),
        "n_trials": len(part),
        "message": _degenerate_reason(part),
    }


def _fit_or_message(name: str, fit, usable: list) -> dict:
    # A singular or otherwise failed fit must become a row message, since a
    # researcher's analysis page should never crash on awkward data.
    try:
        return fit()
    except Exception as exc:
        failure = f"model fit failed: {type(exc).__name__}: {exc}"
        return {g: {"estimator": name, "message": failure} for g in usable}


def _log_odds_frame(groups: list, estimators: list, base: dict, results: dict) -> pd.DataFrame:
    """One row per group and estimator; NaN where an estimator has no number for the group."""
    import pandas as pd

    rows = []
    for group in groups:
        for name in estimators:
            row = dict.fromkeys(LOG_ODDS_COLUMNS, np.nan)
            row.update(base[group])
            row["estimator"] = name
            row["interval"] = None
            row.update(results[name].get(group, {}))
            rows.append(row)
    return pd.DataFrame(rows, columns=LOG_ODDS_COLUMNS)


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
    from scipy import stats

    if not 0 < confidence < 1:
        raise ValueError("confidence must be strictly between 0 and 1")
    if not fe_prior_sd > 0:
        raise ValueError("fe_prior_sd must be positive")
    frame = trial_errors(trials_with_meta)
    z = float(stats.norm.ppf(0.5 + confidence / 2))
    groups = natural_sorted(frame["group"].unique())
    estimators = [MIXED_ESTIMATOR] + ([GEE_ESTIMATOR] if include_gee else [])

    base = {group: _group_base(frame, group) for group in groups}
    usable = [group for group in groups if base[group]["message"] is None]
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
        results = {name: _fit_or_message(name, fitters[name], usable) for name in estimators}
    return _log_odds_frame(groups, estimators, base, results)


def model_trials(trials_with_meta: pd.DataFrame) -> pd.DataFrame:
    """The trials :func:`log_odds_by_group` fits its models on, one row each, long format.

    participant, chart_id, group, question, version (1 / 2), manipulated (0 / 1) and error
    (1 wrong or unanswered, 0 correct), for the groups the fit keeps (a group with an
    unbounded cell is left out, see :func:`log_odds_by_group`); in natural group order.
    This is the data a replication in R (lme4's ``glmer``) reads.
    """
    import pandas as pd

    frame = trial_errors(trials_with_meta)
    frame["chart_id"] = pd.DataFrame(trials_with_meta)["chart_id"].astype(str).to_numpy()
    usable = [
        g
        for g in natural_sorted(frame["group"].unique())
        if _degenerate_reason(frame[frame["group"] == g]) is None
    ]
    kept = frame[frame["group"].isin(usable)].copy()
    kept["manipulated"] = (kept["version"] == 2).astype(int)
    kept["error"] = kept["error"].astype(int)
    ordered = sorted(
        kept.index,
        key=lambda i: (
            natural_key(kept.at[i, "group"]),
            kept.at[i, "participant"],
            natural_key(kept.at[i, "chart_id"]),
        ),
    )
    kept = kept.loc[ordered]
    columns = ["participant", "chart_id", "group", "question", "version", "manipulated", "error"]
    return kept[columns].reset_index(drop=True)


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
    import pandas as pd
    from scipy import stats

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
            only_a = natural_sorted(set(a.index) - set(b.index))
            only_b = natural_sorted(set(b.index) - set(a.index))
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
