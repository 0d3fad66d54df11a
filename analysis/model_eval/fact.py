"""FACT error rates of models (CHARTOM Figures 3 and 6) and chi-square per model."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from analysis.hmi import chi_square_manipulation, wilson_interval
from analysis.model_eval.frames import (
    SCOPES,
    answer_frame,
    chart_frame,
    group_manipulations,
    models_in,
    natural_sorted,
    require,
)

_RATE_COLUMNS = ["n", "n_errors", "error_rate", "ci_low", "ci_high"]
OVERALL_COLUMNS = ["model", "scope", *_RATE_COLUMNS]
GROUP_COLUMNS = ["model", "group", "manipulation", "scope", *_RATE_COLUMNS]
COVERAGE_COLUMNS = ["model", "n_charts", "n_answered", "coverage", "missing"]
CHI_SQUARE_COLUMNS = [
    "model",
    "n_non_manipulated",
    "errors_non_manipulated",
    "n_manipulated",
    "errors_manipulated",
    "chi2",
    "dof",
    "p_value",
    "yates_correction",
    "message",
]


@dataclass(frozen=True)
class FactErrorRates:
    """The output of :func:`fact_error_rates`; every frame has a ``model`` column.

    overall
        model, scope ("non-manipulated", "manipulated", "all"), n, n_errors,
        error_rate, ci_low, ci_high: Figure 3.
    by_group
        model, group, manipulation, scope (non-manipulated, manipulated), n,
        n_errors, error_rate, ci_low, ci_high: Figure 6.
    coverage
        model, n_charts (in the study), n_answered, coverage, missing (the chart
        ids without an answer, in natural order).
    chi_square
        One row per model: the 2x2 test manipulated vs non-manipulated.
    """

    overall: pd.DataFrame
    by_group: pd.DataFrame
    coverage: pd.DataFrame
    chi_square: pd.DataFrame


def _rate(errors: pd.Series, confidence: float) -> dict:
    n = int(errors.size)
    k = int(errors.sum())
    low, high = wilson_interval(k, n, confidence)
    return {
        "n": n,
        "n_errors": k,
        "error_rate": k / n if n else np.nan,
        "ci_low": low,
        "ci_high": high,
    }


def _scoped(frame: pd.DataFrame, scope: str) -> pd.Series:
    if scope == "non-manipulated":
        return frame.loc[frame["version"] == 1, "error"]
    if scope == "manipulated":
        return frame.loc[frame["version"] == 2, "error"]
    return frame["error"]


def _rates(
    scored: pd.DataFrame, charts: pd.DataFrame, models: list, confidence: float
) -> tuple[pd.DataFrame, pd.DataFrame]:
    manipulations = group_manipulations(charts)
    groups = natural_sorted(charts["group"].unique())
    overall, by_group = [], []
    for model in models:
        mine = scored[scored["model"] == model]
        for scope in SCOPES:
            overall.append(
                {"model": model, "scope": scope, **_rate(_scoped(mine, scope), confidence)}
            )
        for group in groups:
            part = mine[mine["group"] == group]
            for scope in SCOPES[:2]:
                by_group.append(
                    {
                        "model": model,
                        "group": group,
                        "manipulation": manipulations.get(group),
                        "scope": scope,
                        **_rate(_scoped(part, scope), confidence),
                    }
                )
    return (
        pd.DataFrame(overall, columns=OVERALL_COLUMNS),
        pd.DataFrame(by_group, columns=GROUP_COLUMNS),
    )


def _chi_square(model: str, answered: pd.DataFrame, correction: bool) -> dict:
    row = dict.fromkeys(CHI_SQUARE_COLUMNS, np.nan)
    row.update(model=model, yates_correction=False, message=None)
    if answered.empty:
        row.update(
            n_non_manipulated=0,
            errors_non_manipulated=0,
            n_manipulated=0,
            errors_manipulated=0,
            message="chi-square undefined: no answered charts",
        )
        return row
    trials = answered.rename(columns={"model": "participant"})
    result = chi_square_manipulation(trials, correction=correction).iloc[0]
    row.update({c: result[c] for c in CHI_SQUARE_COLUMNS if c != "model"})
    return row


def fact_error_rates(
    answers: pd.DataFrame,
    charts: pd.DataFrame,
    *,
    confidence: float = 0.95,
    correction: bool = True,
) -> FactErrorRates:
    """FACT error rate of each model on non-manipulated, manipulated and all charts.

        error rate = n_errors / n

    where n counts the charts of that scope the model answered and n_errors
    those it answered wrongly (CHARTOM section 5.1, Figure 3; per group in
    Appendix A, Figure 6). Unanswered charts are left out of n, so the rate is
    over what was answered, and show up in ``coverage`` instead
    (n_answered / n_charts of the study). Intervals are Wilson score intervals
    (:func:`analysis.hmi.wilson_interval`) treating each chart as one trial.

    ``chi_square`` is :func:`analysis.hmi.chi_square_manipulation` on the
    model's answered charts (the model plays the one participant): Pearson's
    chi-square on [[errors, correct] non-manipulated, [errors, correct]
    manipulated], Yates-corrected by default, as the paper's per-model test.
    """
    charts = chart_frame(charts)
    scored = answer_frame(answers, charts)
    models = models_in(scored)
    answered = scored[scored["answered"]]
    overall, by_group = _rates(answered, charts, models, confidence)

    all_ids = natural_sorted(charts["chart_id"])
    coverage, chi = [], []
    for model in models:
        mine = answered[answered["model"] == model]
        done = set(mine["chart_id"])
        coverage.append(
            {
                "model": model,
                "n_charts": len(all_ids),
                "n_answered": len(done),
                "coverage": len(done) / len(all_ids) if all_ids else np.nan,
                "missing": [c for c in all_ids if c not in done],
            }
        )
        trials = mine[
            ["model", "chart_id", "correct", "group", "question", "version", "manipulation"]
        ]
        chi.append(_chi_square(model, trials, correction))
    return FactErrorRates(
        overall=overall,
        by_group=by_group,
        coverage=pd.DataFrame(coverage, columns=COVERAGE_COLUMNS),
        chi_square=pd.DataFrame(chi, columns=CHI_SQUARE_COLUMNS),
    )


def human_error_rates(
    trials: pd.DataFrame,
    charts: pd.DataFrame,
    *,
    label: str = "humans",
    confidence: float = 0.95,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The humans' pooled FACT error rates in the layout of :func:`fact_error_rates`.

    ``trials`` are the included participants' (participant, chart_id,
    correct); unanswered counts as an error here, as in HMI (section 4.2), so
    the "all" rate equals the mean HMI weighted by each chart's n. All trials
    are pooled and the Wilson interval treats them as independent, which
    understates the uncertainty when participants differ in skill.

    Returns (overall, by_group) with ``model`` set to ``label``, ready to
    concatenate with the models' frames for Figure 3.
    """
    trials = pd.DataFrame(trials)
    require(trials, ("participant", "chart_id", "correct"), "trials")
    charts = chart_frame(charts)
    correct = trials["correct"].astype(object)
    answers = pd.DataFrame(
        {
            "model": trials["participant"].astype(str).to_numpy(),
            "chart_id": trials["chart_id"].to_numpy(),
            "correct": correct.where(correct.notna(), False).to_numpy(),
        }
    )
    scored = answer_frame(answers, charts)
    scored["model"] = label
    return _rates(scored, charts, [label], confidence)
