"""The planner's numbers against closed forms, statsmodels and simulation."""

import math

import numpy as np
import pytest
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.proportion import proportion_confint

from analysis.planning import (
    discordance_independent,
    mcnemar_power,
    mcnemar_power_simulated,
    n_for_half_width,
    n_for_power,
    plan_cost,
    recruit_for,
    wilson_half_width,
)


@pytest.mark.parametrize("n,k", [(68, 34), (68, 3), (10, 3), (250, 125), (20, 0)])
def test_half_width_is_half_the_statsmodels_wilson_interval(n, k):
    low, high = proportion_confint(k, n, alpha=0.05, method="wilson")
    assert wilson_half_width(n, k / n) == pytest.approx((high - low) / 2, abs=1e-12)


def test_the_issue_figures_68_people_give_about_12_and_5_points():
    assert wilson_half_width(68, 0.5) == pytest.approx(0.1156, abs=1e-4)
    assert wilson_half_width(68, 0.05) == pytest.approx(0.0558, abs=1e-4)


@pytest.mark.parametrize("target", [0.05, 0.08, 0.1, 0.1156193, 0.15, 0.2])
@pytest.mark.parametrize("p", [0.5, 0.3, 0.1, 0.02, 0.0])
def test_n_for_half_width_is_the_smallest_n_that_reaches_the_target(target, p):
    n = n_for_half_width(target, p)
    assert wilson_half_width(n, p) <= target
    assert n == 1 or wilson_half_width(n - 1, p) > target
    # An independent check: scan every n.
    scan = next(m for m in range(1, 5000) if wilson_half_width(m, p) <= target)
    assert n == scan


def test_worst_case_for_a_tenth_is_close_to_the_wald_figure():
    # Wald: 1.96^2 * 0.25 / 0.01 = 96.04; Wilson is a little narrower.
    assert n_for_half_width(0.10) == 93


@pytest.mark.parametrize("p1,p2", [(0.51, 0.68), (0.03, 0.83), (0.19, 0.27), (0.76, 0.69)])
def test_connor_sample_size_reaches_the_power_it_promises(p1, p2):
    n = n_for_power(0.8, p1, p2)
    assert mcnemar_power(n, p1, p2) >= 0.8
    assert n == 1 or mcnemar_power(n - 1, p1, p2) < 0.8


def test_connor_matches_his_worked_numbers_by_hand():
    # delta = 0.1, psi = 0.3, alpha 0.05, power 0.8:
    # n = (1.95996 * sqrt(.3) + 0.84162 * sqrt(.29))^2 / .01 = 233.7 -> 234
    psi = 0.3
    n = (1.959964 * math.sqrt(psi) + 0.841621 * math.sqrt(psi - 0.01)) ** 2 / 0.01
    assert n_for_power(0.8, 0.2, 0.3, discordance=psi) == math.ceil(n) == 234


@pytest.mark.parametrize("n,p1,p2", [(68, 0.51, 0.68), (40, 0.19, 0.45), (120, 0.31, 0.53)])
def test_connor_power_agrees_with_simulation(n, p1, p2):
    closed = mcnemar_power(n, p1, p2)
    simulated = mcnemar_power_simulated(n, p1, p2, reps=20000, seed=3)
    assert simulated == pytest.approx(closed, abs=0.03)


def test_the_simulated_test_is_statsmodels_uncorrected_mcnemar():
    # b = 9, c = 3 discordant: statistic 36 / 12 = 3 < 3.84 (not significant); b=12, c=3: 5.4.
    for b, c, significant in ((9, 3, False), (12, 3, True)):
        result = mcnemar([[10, b], [c, 20]], exact=False, correction=False)
        assert bool(result.pvalue < 0.05) is significant
        assert result.statistic == pytest.approx((b - c) ** 2 / (b + c))


def test_equal_hmis_have_no_sample_size_and_power_alpha():
    assert n_for_power(0.8, 0.3, 0.3) is None
    assert mcnemar_power(50, 0.3, 0.3) == pytest.approx(0.05)


def test_an_impossible_discordance_is_refused():
    with pytest.raises(ValueError):
        mcnemar_power(50, 0.1, 0.5, discordance=0.2)  # below |delta| = 0.4


def test_independent_discordance():
    assert discordance_independent(0.2, 0.5) == pytest.approx(0.2 * 0.5 + 0.5 * 0.8)


def test_exclusions_and_cost():
    assert recruit_for(68, 10 / 78) == 78  # CHARTOM: 78 recruited, 10 excluded, 68 kept
    assert recruit_for(93, 0) == 93
    assert plan_cost(90, 0.1, 4.5) == {"included": 90, "recruit": 100, "cost": 450.0}
    with pytest.raises(ValueError):
        recruit_for(10, 1.0)


def test_half_width_vectorises_and_is_nan_for_nobody():
    out = wilson_half_width(np.array([0, 10, 100]), 0.5)
    assert np.isnan(out[0]) and out[1] > out[2]


def test_plan_precision_takes_the_chart_nearest_a_half():
    from analysis.planning import plan_precision

    plan = plan_precision(0.1, [0.03, 0.83, 0.51, 0.9])
    assert plan == {"included": n_for_half_width(0.1, 0.51), "limiting_hmi": 0.51}


def test_plan_power_takes_the_hardest_pair_and_lists_equal_ones():
    from analysis.planning import plan_power

    plan = plan_power(0.8, [("G3", 0.03, 0.83), ("G10", 0.19, 0.27), ("X", 0.2, 0.2)])
    assert plan["limiting"]["name"] == "G10"
    assert plan["included"] == n_for_power(0.8, 0.19, 0.27)
    assert plan["no_effect"] == ["X"]


def test_the_worst_case_pair_straddles_a_half_and_needs_the_most():
    from analysis.planning import worst_case_pair

    p1, p2 = worst_case_pair(0.2)
    assert (p1, p2) == pytest.approx((0.4, 0.6))
    assert n_for_power(0.8, p1, p2) >= n_for_power(0.8, 0.1, 0.3)


def test_the_curve_is_an_svg_without_inline_styles():
    from analysis.planning_plots import planning_curve_svg

    svg = planning_curve_svg(kind="precision", needed=93, goal=0.1, p=0.3)
    assert svg.startswith("<svg") and "style=" not in svg
    assert "93 included" in svg
    assert "power" in planning_curve_svg(kind="power", needed=60, goal=0.8, pair=(0.3, 0.55))
