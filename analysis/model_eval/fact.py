"""FACT error rates of models (CHARTOM Figures 3 and 6) and chi-square per model."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

# The participants' chi-square row, so humans and models get the very same test.
from analysis.hmi import chart_hmi, chi_square_manipulation, chi_square_row, wilson_interval
from analysis.model_eval.frames import (
    SCOPES,
    answer_frame,
    chart_frame,
    group_manipulations,
    models_in,
)
from analysis.tables import natural_sorted, require_columns

if TYPE_CHECKING:
    import pandas as pd

# How the study's participants are labelled beside the models in tables and figures.
HUMANS = "Humans"

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
    import pandas as pd

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
    import pandas as pd

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


def _counts_frame(counts: pd.DataFrame, charts: pd.DataFrame) -> pd.DataFrame:
    import pandas as pd

    counts = pd.DataFrame(counts)
    require_columns(counts, ("chart_id", "n", "n_wrong"), "counts")
    if counts["chart_id"].duplicated().any():
        raise ValueError("counts has more than one row for a chart")
    unknown = set(counts["chart_id"]) - set(charts["chart_id"])
    if unknown:
        raise ValueError(f"counts refer to unknown chart(s) {natural_sorted(unknown)[:5]}")
    n = pd.to_numeric(counts["n"], errors="coerce")
    wrong = pd.to_numeric(counts["n_wrong"], errors="coerce")
    if n.isna().any() or wrong.isna().any() or (wrong < 0).any() or (wrong > n).any():
        raise ValueError("counts need whole numbers with 0 <= n_wrong <= n")
    out = pd.DataFrame(
        {
            "chart_id": counts["chart_id"].to_numpy(),
            "n": n.astype(int).to_numpy(),
            "n_wrong": wrong.astype(int).to_numpy(),
        }
    )
    meta = charts[["chart_id", "group", "version"]]
    return out.merge(meta, on="chart_id", how="left", validate="one_to_one")


def _pooled(part: pd.DataFrame, scope: str, confidence: float) -> dict:
    if scope != "all":
        part = part[part["version"] == (1 if scope == "non-manipulated" else 2)]
    n, k = int(part["n"].sum()), int(part["n_wrong"].sum())
    low, high = wilson_interval(k, n, confidence)
    return {
        "n": n,
        "n_errors": k,
        "error_rate": k / n if n else np.nan,
        "ci_low": low,
        "ci_high": high,
    }


def _pooled_chi_square(label: str, counts: pd.DataFrame, correction: bool) -> dict:
    # The 2x2 table only needs the four totals, so they are laid out as one
    # row per trial and handed to the participants' test.
    import pandas as pd

    blocks = []
    for version in (1, 2):
        part = counts[counts["version"] == version]
        n, k = int(part["n"].sum()), int(part["n_wrong"].sum())
        blocks.append(
            pd.DataFrame({"version": version, "error": np.repeat([1.0, 0.0], [k, n - k])})
        )
    table = pd.concat(blocks, ignore_index=True)
    row = chi_square_row(table, correction)
    return {"model": label, **{c: row[c] for c in CHI_SQUARE_COLUMNS if c != "model"}}


def human_fact_rates(
    counts: pd.DataFrame,
    charts: pd.DataFrame,
    *,
    label: str = HUMANS,
    confidence: float = 0.95,
    correction: bool = True,
) -> FactErrorRates:
    """The humans' FACT error rates, pooled over the included participants (Figure 3).

    ``counts`` has one row per chart: chart_id, n (included participants shown
    the chart) and n_wrong (those who did not answer its FACT question
    correctly, unanswered included), as :func:`analysis.hmi.chart_hmi` returns
    them. For a scope S (non-manipulated, manipulated or all charts):

        error rate(S) = sum_{c in S} n_wrong_c / sum_{c in S} n_c

    which is the mean over every included participant x chart trial of "not
    correct" (CHARTOM section 5.1, Figure 3's "human" bars; per group, Figure
    6), so the "all" rate equals the mean HMI weighted by n. The Wilson
    interval treats the pooled trials as independent, like the models'
    intervals; it understates the uncertainty when participants differ in
    skill. ``chi_square`` is the test of the models (Yates by default) on the
    pooled 2x2 table, the same as :func:`analysis.hmi.chi_square_manipulation`'s
    "overall" row. ``coverage`` is empty: participants' unanswered trials
    count as errors rather than as missing.
    """
    import pandas as pd

    charts = chart_frame(charts)
    pooled = _counts_frame(counts, charts)
    manipulations = group_manipulations(charts)
    overall = [
        {"model": label, "scope": scope, **_pooled(pooled, scope, confidence)} for scope in SCOPES
    ]
    by_group = [
        {
            "model": label,
            "group": group,
            "manipulation": manipulations.get(group),
            "scope": scope,
            **_pooled(pooled[pooled["group"] == group], scope, confidence),
        }
        for group in natural_sorted(charts["group"].unique())
        for scope in SCOPES[:2]
    ]
    return FactErrorRates(
        overall=pd.DataFrame(overall, columns=OVERALL_COLUMNS),
        by_group=pd.DataFrame(by_group, columns=GROUP_COLUMNS),
        coverage=pd.DataFrame(columns=COVERAGE_COLUMNS),
        chi_square=pd.DataFrame(
            [_pooled_chi_square(label, pooled, correction)], columns=CHI_SQUARE_COLUMNS
        ),
    )


def human_error_rates(
    trials: pd.DataFrame,
    charts: pd.DataFrame,
    *,
    label: str = HUMANS,
    confidence: float = 0.95,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The humans' pooled FACT error rates from trials, in the layout of :func:`fact_error_rates`.

    ``trials`` are the included participants' (participant, chart_id,
    correct); unanswered counts as an error, as in HMI (section 4.2). The
    trials are counted per chart with :func:`analysis.hmi.chart_hmi` and pooled
    by :func:`human_fact_rates`, which gives the formula.

    Returns (overall, by_group) with ``model`` set to ``label``, ready to
    concatenate with the models' frames for Figures 3 and 6.
    """
    import pandas as pd

    trials = pd.DataFrame(trials)
    require_columns(trials, ("participant", "chart_id", "correct"), "trials")
    counts = chart_hmi(trials)[["chart_id", "n", "n_wrong"]]
    rates = human_fact_rates(counts, charts, label=label, confidence=confidence)
    return rates.overall, rates.by_group
