"""Log odds ratios per manipulation group for the model population, ranked
against the humans' (CHARTOM section 5.2, Figure 4, Appendix C)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from analysis.log_odds import LOG_ODDS_COLUMNS, MIXED_ESTIMATOR, kendall_tau, log_odds_by_group
from analysis.model_eval.frames import answer_frame, chart_frame, group_manipulations
from analysis.tables import natural_sorted, require_columns

if TYPE_CHECKING:
    import pandas as pd


def model_population_log_odds(
    answers: pd.DataFrame,
    charts: pd.DataFrame,
    *,
    seed: int = 0,
    **options,
) -> pd.DataFrame:
    """Log odds ratio per manipulation group for the population of models.

    Fits the paper's LLM model (Appendix C)

        glmer(error ~ group_id:manipulation_type + (1 | llm)
              + (1 | group_id:question_id), family = binomial)

    by handing the answered charts to :func:`analysis.log_odds.log_odds_by_group`
    with the model name in the ``participant`` column, so the model identity is
    the random intercept. ``options`` pass through (confidence, fe_prior_sd,
    include_gee, max_iterations). Groups where every model got every
    non-manipulated (or manipulated) chart right have an unbounded log odds
    and come back as NaN with a message; the paper's 1e20-scale odds ratios
    are that case fitted anyway.
    """
    charts = chart_frame(charts)
    scored = answer_frame(answers, charts)
    answered = scored[scored["answered"]]
    trials = answered[
        ["model", "chart_id", "correct", "group", "question", "version", "manipulation"]
    ]
    return log_odds_by_group(trials.rename(columns={"model": "participant"}), seed=seed, **options)


EMPIRICAL_ESTIMATOR = "empirical, Haldane-Anscombe +0.5"


def empirical_log_odds(
    answers: pd.DataFrame, charts: pd.DataFrame, *, confidence: float = 0.95
) -> pd.DataFrame:
    """Pooled log odds ratio per group with the Haldane-Anscombe correction.

    With a errors and b correct answers on the group's manipulated charts and
    c errors and d correct on its non-manipulated charts, over all models:

        log(OR) = log( (a + 0.5)(d + 0.5) / ((b + 0.5)(c + 0.5)) )
        se      = sqrt( 1/(a + 0.5) + 1/(b + 0.5) + 1/(c + 0.5) + 1/(d + 0.5) )

    (Haldane 1940; Anscombe 1956), with a Wald interval. Unlike the mixed
    model it stays finite when every model got every plain chart right, which
    is common for models, so it can rank all groups; it ignores that answers
    from one model are correlated. Same columns as
    :func:`analysis.log_odds.log_odds_by_group`, so :func:`compare_rankings`
    takes it with ``estimator=EMPIRICAL_ESTIMATOR``.
    """
    import pandas as pd
    from scipy import stats

    charts = chart_frame(charts)
    scored = answer_frame(answers, charts)
    answered = scored[scored["answered"]]
    manipulations = group_manipulations(charts)
    z = float(stats.norm.ppf(0.5 + confidence / 2))
    rows = []
    for group in natural_sorted(charts["group"].unique()):
        part = answered[answered["group"] == group]
        manipulated = part.loc[part["version"] == 2, "error"]
        plain = part.loc[part["version"] == 1, "error"]
        row = {
            "group": group,
            "manipulation": manipulations.get(group),
            "estimator": EMPIRICAL_ESTIMATOR,
            "n_trials": len(part),
        }
        if manipulated.empty or plain.empty:
            which = "manipulated" if manipulated.empty else "non-manipulated"
            rows.append({**row, "message": f"no answered {which} charts"})
            continue
        a, b = manipulated.sum() + 0.5, (1 - manipulated).sum() + 0.5
        c, d = plain.sum() + 0.5, (1 - plain).sum() + 0.5
        log_or = float(np.log(a * d / (b * c)))
        se = float(np.sqrt(1 / a + 1 / b + 1 / c + 1 / d))
        rows.append(
            {
                **row,
                "p_n": c / (c + d),
                "p_m": a / (a + b),
                "log_odds_ratio": log_or,
                "se": se,
                "ci_low": log_or - z * se,
                "ci_high": log_or + z * se,
                "interval": f"{confidence:.0%} Wald interval",
                "message": None,
            }
        )
    return pd.DataFrame(rows, columns=LOG_ODDS_COLUMNS)


@dataclass(frozen=True)
class RankingComparison:
    """Kendall's tau between two rankings of manipulation groups by log odds ratio."""

    tau: float
    p_value: float
    n_groups: int
    groups: list
    left_out: dict
    message: str | None


def _scores(log_odds, estimator: str, name: str) -> tuple[pd.Series, dict]:
    import pandas as pd

    if isinstance(log_odds, pd.DataFrame):
        require_columns(log_odds, ("group", "log_odds_ratio"), name)
        frame = log_odds
        if "estimator" in frame:
            frame = frame[frame["estimator"] == estimator]
        if frame["group"].duplicated().any():
            raise ValueError(f"{name} has more than one row per group")
        values = pd.Series(
            pd.to_numeric(frame["log_odds_ratio"], errors="coerce").to_numpy(dtype=float),
            index=frame["group"].astype(str).to_numpy(),
        )
        messages = (
            dict(zip(frame["group"].astype(str), frame["message"], strict=True))
            if "message" in frame
            else {}
        )
    elif isinstance(log_odds, Mapping | pd.Series):
        values = pd.Series({str(k): float(v) for k, v in dict(log_odds).items()}, dtype=float)
        messages = {}
    else:
        raise ValueError(f"{name} must be a log-odds frame, a Series or a mapping")
    reasons = {}
    for group, value in values.items():
        if not np.isfinite(value):
            note = messages.get(group)
            reasons[group] = f"no {name.split('_')[0]} log odds ratio" + (
                f" ({note})" if isinstance(note, str) and note else ""
            )
    return values[np.isfinite(values.to_numpy())], reasons


def compare_rankings(
    human_log_odds, model_log_odds, *, estimator: str = MIXED_ESTIMATOR
) -> RankingComparison:
    """Kendall's tau between the humans' and the models' ranking of groups.

    Both inputs are :func:`analysis.log_odds.log_odds_by_group` frames (rows of
    ``estimator`` are used) or group -> log odds ratio mappings. The paper
    (section 5.2) reports tau = 0.60 over 14 manipulations; tau here is
    :func:`analysis.log_odds.kendall_tau` (tau-b) over the groups with a finite log
    odds ratio on both sides. Groups missing or non-finite on either side are
    listed in ``left_out`` with the reason; with fewer than 2 common groups,
    tau is NaN and ``message`` says why.
    """
    human, human_reasons = _scores(human_log_odds, estimator, "human_log_odds")
    model, model_reasons = _scores(model_log_odds, estimator, "model_log_odds")
    every = natural_sorted(
        set(human.index) | set(model.index) | set(human_reasons) | set(model_reasons)
    )
    left_out = {}
    for group in every:
        reasons = []
        if group in human_reasons:
            reasons.append(human_reasons[group])
        elif group not in human.index:
            reasons.append("not in the human results")
        if group in model_reasons:
            reasons.append(model_reasons[group])
        elif group not in model.index:
            reasons.append("not in the model results")
        if reasons:
            left_out[group] = "; ".join(reasons)
    common = [g for g in every if g not in left_out]
    if len(common) < 2:
        return RankingComparison(
            tau=np.nan,
            p_value=np.nan,
            n_groups=len(common),
            groups=common,
            left_out=left_out,
            message=(
                "Kendall's tau needs at least 2 groups with a log odds ratio on both sides; "
                f"have {len(common)}"
            ),
        )
    result = kendall_tau(human.loc[common], model.loc[common])
    message = None
    if not np.isfinite(result.tau):
        message = "one ranking is constant, so Kendall's tau is undefined"
    return RankingComparison(
        tau=result.tau,
        p_value=result.p_value,
        n_groups=len(common),
        groups=common,
        left_out=left_out,
        message=message,
    )
