"""Precision-targeted stopping: the rule, and the coverage of the intervals it stops at."""

import numpy as np
import pytest

from analysis.planning import n_for_half_width, wilson_half_width
from analysis.simulate import chartom_groups
from analysis.stopping import precision_status, precision_stop, simulate_precision_stopping


def _table_1_truth(groups=None):
    table = chartom_groups()
    if groups:
        table = table[table["group"].isin(groups)]
    both = np.r_[table["hmi_non_manipulated"].to_numpy(), table["hmi_manipulated"].to_numpy()]
    return np.repeat(both, 4)


def test_status_reports_widths_and_what_is_still_needed():
    status = precision_status([10, 1], [20, 20], target=0.1)
    assert status["half_width"][0] == pytest.approx(wilson_half_width(20, 0.5))
    assert status["still_needed"][0] == n_for_half_width(0.1, 0.5) - 20
    assert status["still_needed"][1] == max(0, n_for_half_width(0.1, 0.05) - 20)
    assert status["met"] is False


def test_the_rule_respects_min_and_max():
    wide, narrow = ([50], [100]), ([1], [400])
    assert precision_stop(*narrow, included=400, target=0.1, min_n=500, max_n=None) is None
    assert precision_stop(*narrow, included=400, target=0.1, min_n=20, max_n=None) == "precision"
    assert precision_stop(*wide, included=100, target=0.05, min_n=20, max_n=100) == "max"
    assert precision_stop(*wide, included=99, target=0.05, min_n=20, max_n=100) is None


def test_stopped_intervals_cover_the_table_1_hmis():
    # Few seeds: a loose check. bench/bench_planner.py runs thousands.
    truth = _table_1_truth()
    result = simulate_precision_stopping(
        truth, target=wilson_half_width(68, 0.5), min_n=20, max_n=200, seeds=40, fixed_n=68
    )
    assert result["pooled_coverage"] >= 0.93
    assert result["max_half_width"].max() <= wilson_half_width(68, 0.5) + 1e-12
    assert result["n_used"].max() <= 68


def test_an_early_stop_on_charts_far_from_a_half_still_covers():
    truth = _table_1_truth(["G3", "G4", "G5", "G6", "G15"])
    result = simulate_precision_stopping(truth, target=0.15, min_n=10, max_n=200, seeds=60)
    assert result["n_used"].mean() < n_for_half_width(0.15)
    assert result["pooled_coverage"] >= 0.93
