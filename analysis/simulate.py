"""Simulated chart studies with a known truth.

The generating model is the one the CHARTOM analysis assumes (Appendix C of the
seed paper): a logistic model with a fixed log-odds per group x version cell,
a random intercept per participant and a random intercept per question, shared
by the two versions of a chart pair. Because the truth is known, tests and
benchmarks can check that HMI, chi-square and the log-odds estimators recover
it, and a demo study can be filled with plausible answers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

# Table 1 of the CHARTOM paper: group, chart type, answer type, mean HMI of the
# non-manipulated charts, manipulation and mean HMI of the manipulated charts.
_CHARTOM_TABLE_1 = [
    ("G1", "line", "free text", 0.51, "truncated y-axis", 0.68),
    ("G2", "line", "free text", 0.76, "compressed y-axis", 0.88),
    ("G3", "line", "multiple choice", 0.03, "inverted y-axis", 0.83),
    ("G4", "line", "multiple choice", 0.05, "inconsistent x-axis", 0.92),
    ("G9", "line", "multiple choice", 0.19, "dual axes", 0.84),
    ("G7", "bar", "free text", 0.31, "truncated y-axis", 0.53),
    ("G8", "bar", "free text", 0.76, "compressed y-axis", 0.69),
    ("G10", "bar", "free text", 0.19, "pictorial bars", 0.27),
    ("G12", "bar", "multiple choice", 0.11, "3D effect", 0.48),
    ("G5", "scatter", "multiple choice", 0.02, "logarithmic y-axis", 0.63),
    ("G6", "scatter", "multiple choice", 0.02, "inverted x-axis", 0.73),
    ("G15", "map", "multiple choice", 0.02, "inverted color scale", 0.15),
    ("G13", "pie", "rank", 0.25, "3D effect", 0.79),
    ("G14", "pie", "rank", 0.30, "3D effect + pop out", 0.79),
]

_CHART_COLUMNS = ("chart_id", "group", "question", "version")


def chartom_groups() -> pd.DataFrame:
    """The 14 manipulation groups of CHARTOM Table 1 with their published mean HMIs.

    Columns: group, chart_type, answer_type, hmi_non_manipulated, manipulation,
    hmi_manipulated. Source: Table 1 of the CHARTOM paper (seed 000).
    """
    import pandas as pd

    return pd.DataFrame(
        _CHARTOM_TABLE_1,
        columns=[
            "group",
            "chart_type",
            "answer_type",
            "hmi_non_manipulated",
            "manipulation",
            "hmi_manipulated",
        ],
    )


def make_charts(groups: pd.DataFrame | None = None, questions_per_group: int = 4) -> pd.DataFrame:
    """A chart catalogue: one pair (``_1`` plain, ``_2`` manipulated) per question.

    ``groups`` needs a ``group`` column; ``chart_type``, ``answer_type`` and
    ``manipulation`` are copied when present. Defaults to CHARTOM Table 1, whose
    112 charts are 14 groups x 4 questions x 2 versions.

    Returns chart_id (``G1_Q1_1``), group, question (``Q1``), version (1 or 2),
    chart_type, answer_type, manipulation ("none" on version 1).
    """
    import pandas as pd

    if questions_per_group < 1:
        raise ValueError("questions_per_group must be at least 1")
    groups = chartom_groups() if groups is None else pd.DataFrame(groups)
    if "group" not in groups.columns:
        raise ValueError("groups needs a 'group' column")
    if groups["group"].duplicated().any():
        raise ValueError("group names must be unique")
    rows = []
    for record in groups.to_dict("records"):
        for q in range(1, questions_per_group + 1):
            for version in (1, 2):
                rows.append(
                    {
                        "chart_id": f"{record['group']}_Q{q}_{version}",
                        "group": record["group"],
                        "question": f"Q{q}",
                        "version": version,
                        "chart_type": record.get("chart_type"),
                        "answer_type": record.get("answer_type"),
                        "manipulation": (
                            record.get("manipulation", "manipulated") if version == 2 else "none"
                        ),
                    }
                )
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class SimulatedStudy:
    """The output of :func:`simulate_trials`.

    trials
        participant, chart_id, position (0-based presentation order) and
        correct (nullable boolean; ``<NA>`` = unanswered). Every participant,
        including the inattentive ones, answers every chart.
    charts
        The input catalogue plus ``true_log_odds`` (error log-odds for a
        participant of average ability), ``true_error_probability`` (error
        probability averaged over the population of attentive participants) and
        ``expected_hmi`` (the same after unanswered questions, which count as
        wrong, i.e. what the HMI of the included participants estimates).
    group_effects
        group, manipulation, base_log_odds (version 1, average question and
        participant) and true_log_odds_effect (the extra log-odds of an error on
        a manipulated chart: the quantity the mixed model's log odds ratio
        estimates).
    participants
        participant, ability (the random intercept; higher means fewer errors),
        attention_passed.
    failed_attention
        The ids of the participants who failed the attention checks.
    """

    trials: pd.DataFrame
    charts: pd.DataFrame
    group_effects: pd.DataFrame
    participants: pd.DataFrame
    failed_attention: tuple[str, ...]

    @property
    def included_trials(self) -> pd.DataFrame:
        """Trials of the participants who passed the attention checks."""
        keep = ~self.trials["participant"].isin(self.failed_attention)
        return self.trials.loc[keep].reset_index(drop=True)


def _per_group(value, groups: list, name: str, transform=None) -> np.ndarray:
    import pandas as pd

    if isinstance(value, Mapping | pd.Series):
        missing = [g for g in groups if g not in value]
        if missing:
            raise ValueError(f"{name} has no value for group(s) {missing}")
        out = np.array([float(value[g]) for g in groups])
    else:
        out = np.full(len(groups), float(value))
    return transform(out) if transform is not None else out


def _population_error_probability(eta: np.ndarray, sd: float) -> np.ndarray:
    # E[expit(eta - a)] for a ~ N(0, sd^2) by Gauss-Hermite quadrature, so the
    # truth matches what a fraction over many participants converges to.
    from scipy.special import expit

    if sd == 0:
        return expit(eta)
    nodes, weights = np.polynomial.hermite_e.hermegauss(60)
    weights = weights / weights.sum()
    return expit(eta[:, None] - sd * nodes[None, :]) @ weights


def _checked_versions(charts: pd.DataFrame) -> pd.Series:
    """Refuse a catalogue the simulation cannot use; return its numeric versions."""
    import pandas as pd

    missing = [c for c in _CHART_COLUMNS if c not in charts.columns]
    if missing:
        raise ValueError(f"charts is missing column(s) {missing}")
    if charts.empty:
        raise ValueError("charts is empty")
    if charts["chart_id"].duplicated().any():
        raise ValueError("chart_id values must be unique")
    version = pd.to_numeric(charts["version"], errors="coerce")
    if not version.isin([1, 2]).all():
        raise ValueError("version must be 1 (non-manipulated) or 2 (manipulated)")
    return version


def _check_parameters(
    *,
    n_participants: int,
    attention_fail_rate: float,
    inattentive_error: float,
    unanswered_rate: float,
    participant_sd: float,
    question_sd: float,
) -> None:
    if n_participants < 1:
        raise ValueError("n_participants must be at least 1")
    for name, rate in (
        ("attention_fail_rate", attention_fail_rate),
        ("inattentive_error", inattentive_error),
        ("unanswered_rate", unanswered_rate),
    ):
        if not 0 <= rate <= 1:
            raise ValueError(f"{name} must be between 0 and 1")
    if participant_sd < 0 or question_sd < 0:
        raise ValueError("standard deviations must be non-negative")


def _group_log_odds(
    groups: list, base_error, manipulation_effect
) -> tuple[dict[str, float], dict[str, float]]:
    """Per group: the error log-odds of version 1 and the extra log-odds of version 2."""
    from scipy.special import logit

    def to_logit(p):
        if np.any((p <= 0) | (p >= 1)):
            raise ValueError("base_error must be strictly between 0 and 1")
        return logit(p)

    base = dict(zip(groups, _per_group(base_error, groups, "base_error", to_logit), strict=True))
    effect = dict(
        zip(groups, _per_group(manipulation_effect, groups, "manipulation_effect"), strict=True)
    )
    return base, effect


def _chart_log_odds(
    charts: pd.DataFrame, is_manipulated: np.ndarray, base: dict, effect: dict, difficulty: dict
) -> np.ndarray:
    """Each chart's error log-odds for a participant of average ability (a_i = 0)."""
    chart_base = np.array([base[g] for g in charts["group"]]) + is_manipulated * np.array(
        [effect[g] for g in charts["group"]]
    )
    return chart_base + np.array(
        [difficulty[k] for k in zip(charts["group"], charts["question"], strict=True)]
    )


def _random_positions(rng: np.random.Generator, n_participants: int, n_charts: int) -> np.ndarray:
    """A fresh random presentation order per participant: position[i, c] of chart c."""
    order = np.argsort(rng.random((n_participants, n_charts)), axis=1)
    position = np.empty_like(order)
    np.put_along_axis(position, order, np.arange(n_charts)[None, :], axis=1)
    return position


def _participant_ids(n: int) -> list[str]:
    width = max(3, len(str(n)))
    return [f"P{i + 1:0{width}d}" for i in range(n)]


def _trials_frame(
    participant_ids: list[str],
    chart_ids: pd.Series,
    position: np.ndarray,
    wrong: np.ndarray,
    blank: np.ndarray,
) -> pd.DataFrame:
    """One row per (participant, chart), participant-major; a blank answer is ``<NA>``."""
    import pandas as pd

    correct = pd.array((~wrong).ravel(), dtype="boolean")
    correct[blank.ravel()] = pd.NA
    return pd.DataFrame(
        {
            "participant": np.repeat(participant_ids, len(chart_ids)),
            "chart_id": np.tile(chart_ids.to_numpy(), len(participant_ids)),
            "position": position.ravel(),
            "correct": correct,
        }
    )


def _truth_frame(
    charts: pd.DataFrame, eta: np.ndarray, participant_sd: float, unanswered_rate: float
) -> pd.DataFrame:
    truth = charts.copy()
    truth["true_log_odds"] = eta
    truth["true_error_probability"] = _population_error_probability(eta, participant_sd)
    truth["expected_hmi"] = (
        unanswered_rate + (1 - unanswered_rate) * truth["true_error_probability"]
    )
    return truth


def _group_effects_frame(
    charts: pd.DataFrame, is_manipulated: np.ndarray, groups: list, base: dict, effect: dict
) -> pd.DataFrame:
    import pandas as pd

    if "manipulation" in charts.columns:
        manipulated = charts.loc[is_manipulated]
        manipulation = manipulated.groupby("group", sort=False)["manipulation"].first()
    else:
        manipulation = pd.Series(dtype=object)
    return pd.DataFrame(
        {
            "group": groups,
            "manipulation": [manipulation.get(g) for g in groups],
            "base_log_odds": [base[g] for g in groups],
            "true_log_odds_effect": [effect[g] for g in groups],
        }
    )


def _draw_errors(rng, eta, ability, inattentive, inattentive_error: float) -> np.ndarray:
    """Participants x charts: whether each answer is wrong (inattentive ones at a flat rate)."""
    from scipy.special import expit

    p_error = expit(eta[None, :] - ability[:, None])
    p_error[inattentive, :] = inattentive_error
    return rng.random(p_error.shape) < p_error


def simulate_trials(
    charts: pd.DataFrame,
    n_participants: int,
    seed: int | np.random.Generator,
    *,
    base_error: float | Mapping[str, float] = 0.15,
    manipulation_effect: float | Mapping[str, float] = 1.5,
    attention_fail_rate: float = 0.1,
    participant_sd: float = 0.7,
    question_sd: float = 0.5,
    inattentive_error: float = 0.5,
    unanswered_rate: float = 0.0,
) -> SimulatedStudy:
    """Simulate every participant answering the FACT question of every chart.

    For an attentive participant i on the chart of group g, question q and
    version v the probability of a wrong answer is

        logit P(error) = logit(base_error[g]) + effect[g] * [v = 2] + d_q - a_i,
        a_i ~ N(0, participant_sd^2),  d_q ~ N(0, question_sd^2),

    i.e. the data-generating form of the CHARTOM model
    ``glmer(error ~ group_id:manipulation_type + (1|student_id) + (1|group_id:question_id))``
    (seed paper, Appendix C). ``base_error`` is a probability and
    ``manipulation_effect`` a log-odds, each a number or a per-group mapping.

    A fraction ``attention_fail_rate`` of participants is inattentive: they err
    with probability ``inattentive_error`` on every chart and fail the
    attention checks, so excluding them (as the paper did with 10 of 78)
    recovers the model above. Each answer is independently left blank with
    probability ``unanswered_rate``. Presentation order is a fresh random
    permutation per participant, as in the paper's randomised design.

    The same ``seed`` and inputs always give the same study.
    """
    import pandas as pd

    charts = pd.DataFrame(charts).reset_index(drop=True)
    version = _checked_versions(charts)
    _check_parameters(
        n_participants=n_participants,
        attention_fail_rate=attention_fail_rate,
        inattentive_error=inattentive_error,
        unanswered_rate=unanswered_rate,
        participant_sd=participant_sd,
        question_sd=question_sd,
    )

    rng = np.random.default_rng(seed)
    groups = list(dict.fromkeys(charts["group"]))
    base, effect = _group_log_odds(groups, base_error, manipulation_effect)

    question_keys = list(dict.fromkeys(zip(charts["group"], charts["question"], strict=True)))
    difficulty = dict(
        zip(question_keys, rng.normal(0.0, question_sd, len(question_keys)), strict=True)
    )
    ability = rng.normal(0.0, participant_sd, n_participants)
    inattentive = rng.random(n_participants) < attention_fail_rate

    is_manipulated = (version == 2).to_numpy()
    eta = _chart_log_odds(charts, is_manipulated, base, effect, difficulty)

    n_charts = len(charts)
    wrong = _draw_errors(rng, eta, ability, inattentive, inattentive_error)
    blank = rng.random((n_participants, n_charts)) < unanswered_rate
    position = _random_positions(rng, n_participants, n_charts)

    participant_ids = _participant_ids(n_participants)
    trials = _trials_frame(participant_ids, charts["chart_id"], position, wrong, blank)

    failed = tuple(p for p, bad in zip(participant_ids, inattentive, strict=True) if bad)
    return SimulatedStudy(
        trials=trials,
        charts=_truth_frame(charts, eta, participant_sd, unanswered_rate),
        group_effects=_group_effects_frame(charts, is_manipulated, groups, base, effect),
        participants=pd.DataFrame(
            {"participant": participant_ids, "ability": ability, "attention_passed": ~inattentive}
        ),
        failed_attention=failed,
    )
