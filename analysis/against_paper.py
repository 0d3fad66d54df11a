"""A study's ranking of manipulation groups set against the CHARTOM paper's (seed 000)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from analysis.json_safe import json_safe
from analysis.log_odds import MIXED_ESTIMATOR, kendall_tau
from analysis.simulate import chartom_groups

if TYPE_CHECKING:
    import pandas as pd

AGAINST = "CHARTOM paper, Table 1 (log odds ratio of its mean HMIs per group)"


def paper_log_odds_ratios() -> dict[str, float]:
    """{group: log odds ratio of the paper's mean HMIs}, from CHARTOM Table 1.

        LOR_g = logit(HMI_manipulated,g) - logit(HMI_non_manipulated,g),
        logit(p) = ln(p / (1 - p))

    The paper ranks its 14 manipulations by this log odds ratio (section 5.2).
    """
    paper = chartom_groups()
    p_n, p_m = paper["hmi_non_manipulated"], paper["hmi_manipulated"]
    lor = np.log(p_m / (1 - p_m)) - np.log(p_n / (1 - p_n))
    return {g: float(v) for g, v in zip(paper["group"], lor, strict=True)}


def kendall_vs_paper(log_odds: pd.DataFrame) -> dict:
    """Kendall's tau-b between the study's and the paper's rankings of groups.

    The study's ranking is by the mixed-model log odds ratio (rows of ``log_odds``,
    as :func:`analysis.log_odds.log_odds_by_group` returns them, whose
    ``estimator`` is the mixed model and whose ``log_odds_ratio`` was fitted); the
    paper's by :func:`paper_log_odds_ratios`. Only groups present in both, by code
    (G1..G15), are compared, and tau is :func:`analysis.log_odds.kendall_tau`
    (Kendall 1945). Fewer than 2 such groups give no tau, with a message; a
    constant ranking gives an undefined tau (None), with a message.
    The result is JSON-safe.
    """
    mixed = log_odds[
        (log_odds["estimator"] == MIXED_ESTIMATOR) & log_odds["log_odds_ratio"].notna()
    ]
    ours = dict(zip(mixed["group"], mixed["log_odds_ratio"], strict=True))
    theirs = paper_log_odds_ratios()
    common = [g for g in ours if g in theirs]
    base = {"against": AGAINST, "estimator": MIXED_ESTIMATOR, "groups": common}
    if len(common) < 2:
        return base | {
            "tau": None,
            "p_value": None,
            "message": "Kendall's tau needs at least 2 groups with a fitted log odds ratio "
            "that also appear (by code, G1..G15) in the paper's Table 1.",
        }
    result = kendall_tau({g: ours[g] for g in common}, {g: theirs[g] for g in common})
    message = None
    if math.isnan(result.tau):
        message = "Kendall's tau is undefined: one of the rankings is constant."
    return base | {
        "tau": json_safe(result.tau),
        "p_value": json_safe(result.p_value),
        "message": message,
        "ours": {g: ours[g] for g in common},
        "theirs": {g: theirs[g] for g in common},
    }
