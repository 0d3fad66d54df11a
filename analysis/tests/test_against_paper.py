import json
import math

import pandas as pd
import pytest
from scipy import stats

from analysis.against_paper import kendall_vs_paper, paper_log_odds_ratios
from analysis.log_odds import MIXED_ESTIMATOR

# CHARTOM Table 1 (seed 000): mean HMI of the non-manipulated and manipulated charts.
TABLE_1 = {
    "G1": (0.51, 0.68),
    "G2": (0.76, 0.88),
    "G3": (0.03, 0.83),
    "G4": (0.05, 0.92),
    "G5": (0.02, 0.63),
    "G7": (0.31, 0.53),
    "G8": (0.76, 0.69),
}


def _logit(p):
    return math.log(p / (1 - p))


def _frame(rows):
    return pd.DataFrame(rows, columns=["group", "estimator", "log_odds_ratio"])


def test_the_papers_log_odds_ratio_is_the_logit_difference_of_its_mean_hmis():
    lor = paper_log_odds_ratios()
    assert len(lor) == 14
    # G1 worked by hand: ln(0.68/0.32) - ln(0.51/0.49) = 0.75377 - 0.04001.
    assert lor["G1"] == pytest.approx(0.713766, abs=1e-6)
    for group, (non_manipulated, manipulated) in TABLE_1.items():
        assert lor[group] == pytest.approx(_logit(manipulated) - _logit(non_manipulated))
    # The one group whose manipulation misled less than its plain chart.
    assert [g for g, v in lor.items() if v < 0] == ["G8"]


def test_it_ranks_the_mixed_estimates_against_the_paper_as_scipy_does():
    ours = {"G1": 0.2, "G2": 0.9, "G3": 2.5, "G4": 1.1, "G5": 3.0, "G7": 0.1, "G8": -0.4}
    rows = [(g, MIXED_ESTIMATOR, v) for g, v in ours.items()]
    # Other estimators, unfitted groups and groups the paper lacks are not compared.
    rows += [("G1", "GEE", 9.0), ("G9", MIXED_ESTIMATOR, None), ("G11", MIXED_ESTIMATOR, 1.0)]
    result = kendall_vs_paper(_frame(rows))

    groups = list(ours)
    expected = stats.kendalltau(
        [ours[g] for g in groups],
        [_logit(TABLE_1[g][1]) - _logit(TABLE_1[g][0]) for g in groups],
    )
    assert result["groups"] == groups
    assert result["tau"] == pytest.approx(expected.statistic)
    assert result["p_value"] == pytest.approx(expected.pvalue)
    assert result["message"] is None
    assert result["estimator"] == MIXED_ESTIMATOR
    assert result["against"].startswith("CHARTOM paper, Table 1")
    assert result["ours"] == ours
    assert result["theirs"]["G8"] == pytest.approx(_logit(0.69) - _logit(0.76))
    json.dumps(result, allow_nan=False)


def test_it_needs_two_groups_in_common_with_the_paper():
    result = kendall_vs_paper(
        _frame([("G1", MIXED_ESTIMATOR, 0.5), ("G11", MIXED_ESTIMATOR, 1.0), ("G2", "GEE", 1.0)])
    )
    assert result["groups"] == ["G1"]
    assert (result["tau"], result["p_value"]) == (None, None)
    assert "at least 2 groups" in result["message"]
    assert "ours" not in result


def test_a_constant_ranking_has_no_tau_and_says_why():
    result = kendall_vs_paper(
        _frame(
            [
                ("G1", MIXED_ESTIMATOR, 1.0),
                ("G2", MIXED_ESTIMATOR, 1.0),
                ("G3", MIXED_ESTIMATOR, 1.0),
            ]
        )
    )
    assert result["tau"] is None
    assert result["message"] == "Kendall's tau is undefined: one of the rankings is constant."
    json.dumps(result, allow_nan=False)
