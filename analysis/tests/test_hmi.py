"""HMI, Wilson intervals, the group table, chi-square, Kendall's tau and the simulator."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from analysis.hmi import (
    attach_chart_meta,
    chart_hmi,
    chi_square_from_counts,
    chi_square_manipulation,
    group_table,
    wilson_interval,
)
from analysis.log_odds import kendall_tau
from analysis.simulate import chartom_groups, make_charts, simulate_trials
from analysis.tables import natural_sorted


def _trials(chart_id, outcomes, start=0):
    return pd.DataFrame(
        {
            "participant": [f"P{start + i}" for i in range(len(outcomes))],
            "chart_id": chart_id,
            "correct": pd.Series(outcomes, dtype=object),
        }
    )


# --------------------------------------------------------------------------- Wilson


def test_wilson_3_of_10_matches_the_hand_worked_interval():
    # p = 0.3, z^2/n = 0.38415: centre 0.35550, half-width 0.24772.
    low, high = wilson_interval(3, 10)
    assert low == pytest.approx(0.1078, abs=5e-5)
    assert high == pytest.approx(0.6032, abs=5e-5)


@pytest.mark.parametrize("confidence", [0.8, 0.9, 0.95, 0.99])
def test_wilson_agrees_with_statsmodels_on_a_grid(confidence):
    n = np.array([1, 2, 5, 10, 17, 68, 68, 68, 250, 1000])
    k = np.array([0, 1, 5, 3, 9, 0, 1, 67, 125, 999])
    low, high = wilson_interval(k, n, confidence)
    ref_low, ref_high = proportion_confint(k, n, alpha=1 - confidence, method="wilson")
    np.testing.assert_allclose(low, ref_low, atol=1e-12)
    np.testing.assert_allclose(high, ref_high, atol=1e-12)


def test_wilson_pins_the_bounds_at_zero_and_all_successes():
    assert wilson_interval(0, 20)[0] == 0.0
    assert wilson_interval(20, 20)[1] == 1.0
    assert 0 < wilson_interval(0, 20)[1] < 1


def test_wilson_with_no_trials_is_nan_not_a_number_made_up():
    low, high = wilson_interval(0, 0)
    assert math.isnan(low) and math.isnan(high)
    lows, highs = wilson_interval([0, 2], [0, 4])
    assert math.isnan(lows[0]) and not math.isnan(lows[1])


@pytest.mark.parametrize(("k", "n", "confidence"), [(5, 4, 0.95), (-1, 4, 0.95), (1, 4, 1.0)])
def test_wilson_rejects_impossible_input(k, n, confidence):
    with pytest.raises(ValueError):
        wilson_interval(k, n, confidence)


# --------------------------------------------------------------------------- chart HMI


def test_hmi_is_the_fraction_of_participants_not_correct():
    trials = _trials("G1_Q1_2", [False] * 3 + [True] * 7)
    row = chart_hmi(trials).iloc[0]
    assert row["n"] == 10 and row["n_wrong"] == 3
    assert row["hmi"] == pytest.approx(0.3)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(wilson_interval(3, 10))
    assert pd.isna(row["note"])


@pytest.mark.parametrize("missing", [None, np.nan, pd.NA])
def test_unanswered_counts_as_not_correct(missing):
    trials = _trials("C_1", [True, True, False, missing])
    row = chart_hmi(trials).iloc[0]
    assert row["n"] == 4 and row["n_wrong"] == 2 and row["n_unanswered"] == 1
    assert row["hmi"] == pytest.approx(0.5)


def test_hmi_accepts_zero_one_and_nullable_boolean_codings():
    as_numbers = _trials("C_1", [1.0, 0.0, np.nan, 1.0])
    as_boolean = as_numbers.assign(correct=pd.array([True, False, pd.NA, True], dtype="boolean"))
    assert chart_hmi(as_numbers)["hmi"].iloc[0] == pytest.approx(0.5)
    assert chart_hmi(as_boolean)["hmi"].iloc[0] == pytest.approx(0.5)


def test_hmi_rejects_answers_that_are_not_true_false_or_missing():
    with pytest.raises(ValueError, match="True, False or missing"):
        chart_hmi(_trials("C_1", [True, "yes"]))


def test_hmi_rejects_a_participant_counted_twice_on_one_chart():
    trials = pd.concat([_trials("C_1", [True]), _trials("C_1", [False])])
    with pytest.raises(ValueError, match="at most once"):
        chart_hmi(trials)


def test_a_chart_nobody_answered_gets_nan_and_a_note():
    trials = _trials("G1_Q1_1", [True, False])
    frame = chart_hmi(trials, chart_ids=["G1_Q1_1", "G1_Q1_2"]).set_index("chart_id")
    empty = frame.loc["G1_Q1_2"]
    assert empty["n"] == 0 and empty["n_wrong"] == 0
    assert math.isnan(empty["hmi"]) and math.isnan(empty["ci_low"])
    assert "no included participant" in empty["note"]
    assert frame.loc["G1_Q1_1", "hmi"] == pytest.approx(0.5)


def test_hmi_rows_come_in_natural_chart_order():
    trials = pd.concat([_trials(c, [True]) for c in ["G10_Q1_1", "G2_Q1_1", "G1_Q2_1"]])
    assert chart_hmi(trials)["chart_id"].tolist() == ["G1_Q2_1", "G2_Q1_1", "G10_Q1_1"]


def test_the_natural_order_sorts_codes_of_any_shape():
    # The library sorts question and group codes with it too; a code starting with a
    # digit beside one starting with a letter must not break the sort.
    codes = ["G7_Q10", "G7_Q2", "7up", "G10", "G2", "A"]
    assert natural_sorted(codes) == ["7up", "A", "G2", "G7_Q2", "G7_Q10", "G10"]


# --------------------------------------------------------------------------- group table


@pytest.fixture
def two_group_charts():
    return make_charts(
        pd.DataFrame(
            {
                "group": ["G10", "G3"],
                "chart_type": ["bar", "line"],
                "answer_type": ["free text", "multiple choice"],
                "manipulation": ["pictorial bars", "inverted y-axis"],
            }
        ),
        questions_per_group=2,
    )


def test_group_table_averages_chart_hmi_per_version(two_group_charts):
    hmi = {
        "G3_Q1_1": 0.0,
        "G3_Q2_1": 0.1,
        "G3_Q1_2": 0.8,
        "G3_Q2_2": 0.9,
        "G10_Q1_1": 0.2,
        "G10_Q2_1": 0.2,
        "G10_Q1_2": 0.3,
        "G10_Q2_2": np.nan,  # nobody answered: left out, not counted as 0
    }
    frame = pd.DataFrame({"chart_id": list(hmi), "hmi": list(hmi.values())})
    table = group_table(frame, two_group_charts)
    assert table["group"].tolist() == ["G3", "G10"]
    g3, g10 = table.iloc[0], table.iloc[1]
    assert (g3["chart_type"], g3["answer_type"], g3["manipulation"]) == (
        "line",
        "multiple choice",
        "inverted y-axis",
    )
    assert g3["hmi_non_manipulated"] == pytest.approx(0.05)
    assert g3["hmi_manipulated"] == pytest.approx(0.85)
    assert g3["n_charts_non_manipulated"] == 2 and g3["n_charts_manipulated"] == 2
    assert g10["hmi_manipulated"] == pytest.approx(0.3)
    assert g10["n_charts_manipulated"] == 1


def test_group_table_notes_a_group_without_manipulated_hmi(two_group_charts):
    frame = pd.DataFrame({"chart_id": ["G3_Q1_1"], "hmi": [0.1]})
    table = group_table(frame, two_group_charts).set_index("group")
    assert math.isnan(table.loc["G3", "hmi_manipulated"])
    assert "no manipulated chart" in table.loc["G3", "note"]
    assert "no non-manipulated chart" in table.loc["G10", "note"]


def test_group_table_rejects_unknown_charts(two_group_charts):
    with pytest.raises(ValueError, match="not in charts"):
        group_table(pd.DataFrame({"chart_id": ["X_1"], "hmi": [0.1]}), two_group_charts)


def test_group_table_reproduces_table_1_from_chart_level_hmis():
    groups = chartom_groups()
    charts = make_charts(groups, questions_per_group=4)
    published = groups.set_index("group")
    hmi = [
        published.loc[g, "hmi_manipulated" if v == 2 else "hmi_non_manipulated"]
        for g, v in zip(charts["group"], charts["version"], strict=True)
    ]
    table = group_table(pd.DataFrame({"chart_id": charts["chart_id"], "hmi": hmi}), charts)
    table = table.set_index("group").loc[published.index]
    np.testing.assert_allclose(table["hmi_manipulated"], published["hmi_manipulated"])
    assert table.loc["G5", "manipulation"] == "logarithmic y-axis"
    assert (table["n_charts_manipulated"] == 4).all()


# --------------------------------------------------------------------------- chi-square


def _counts_frame(group, version, errors, correct, start=0):
    outcomes = [False] * errors + [True] * correct
    frame = _trials(f"{group}_Q1_{version}", outcomes, start)
    return frame.assign(group=group, question="Q1", version=version, manipulation="m")


def test_chi_square_matches_a_hand_worked_2x2():
    # [[10, 40], [30, 20]]: expected [[20, 30], [20, 30]].
    # Pearson: 100/20 + 100/30 + 100/20 + 100/30 = 16.667;
    # Yates:   2 * 9.5^2/20 + 2 * 9.5^2/30 = 15.0417.
    trials = pd.concat([_counts_frame("G1", 1, 10, 40), _counts_frame("G1", 2, 30, 20)])
    yates = chi_square_manipulation(trials).iloc[0]
    plain = chi_square_manipulation(trials, correction=False).iloc[0]
    assert yates["table"] == ((10, 40), (30, 20))
    assert yates["chi2"] == pytest.approx(15.0417, abs=1e-4)
    assert bool(yates["yates_correction"]) is True
    assert plain["chi2"] == pytest.approx(50 / 3)
    assert bool(plain["yates_correction"]) is False
    assert plain["dof"] == 1
    assert plain["p_value"] == pytest.approx(stats.chi2.sf(50 / 3, 1))


def test_chi_square_agrees_with_scipy_overall_and_per_group():
    trials = pd.concat(
        [
            _counts_frame("G1", 1, 5, 45),
            _counts_frame("G1", 2, 20, 30),
            _counts_frame("G2", 1, 12, 38),
            _counts_frame("G2", 2, 14, 36),
        ]
    )
    result = chi_square_manipulation(trials)
    assert result["scope"].tolist() == ["overall", "group", "group"]
    overall = result.iloc[0]
    reference = stats.chi2_contingency([[17, 83], [34, 66]])
    assert overall["table"] == ((17, 83), (34, 66))
    assert overall["chi2"] == pytest.approx(reference.statistic)
    assert overall["p_value"] == pytest.approx(reference.pvalue)
    g2 = result.set_index("group").loc["G2"]
    assert g2["p_value"] == pytest.approx(stats.chi2_contingency([[12, 38], [14, 36]]).pvalue)


def test_chi_square_explains_a_group_where_the_test_is_undefined():
    trials = pd.concat(
        [
            _counts_frame("G1", 1, 5, 45),
            _counts_frame("G1", 2, 20, 30),
            _counts_frame("G2", 1, 0, 10),  # no errors anywhere in G2
            _counts_frame("G2", 2, 0, 10),
            _counts_frame("G3", 1, 2, 8),  # no manipulated trials in G3
        ]
    )
    result = chi_square_manipulation(trials).set_index("group", drop=False)
    assert math.isnan(result.loc["G2", "chi2"]) and math.isnan(result.loc["G2", "p_value"])
    assert "every trial was correct" in result.loc["G2", "message"]
    assert "no manipulated trials" in result.loc["G3", "message"]
    assert pd.isna(result.loc["G1", "message"])
    assert not math.isnan(result.iloc[0]["chi2"])


@pytest.mark.parametrize("correction", [True, False])
def test_chi_square_from_chart_counts_equals_the_test_on_trials(correction):
    charts = make_charts(chartom_groups(), questions_per_group=2)
    trials = simulate_trials(charts, 40, seed=5, unanswered_rate=0.05).trials
    with_meta = attach_chart_meta(trials, charts)
    per_chart = charts.merge(chart_hmi(trials, chart_ids=charts["chart_id"]), on="chart_id")

    from_counts = chi_square_from_counts(per_chart, correction=correction)

    pd.testing.assert_frame_equal(
        from_counts, chi_square_manipulation(with_meta, correction=correction)
    )


def test_chi_square_counts_unanswered_as_errors():
    trials = pd.concat([_counts_frame("G1", 1, 0, 10), _counts_frame("G1", 2, 0, 10, start=10)])
    trials.loc[trials["version"] == 2, "correct"] = None
    assert chi_square_manipulation(trials).iloc[0]["table"] == ((0, 10), (10, 0))


# --------------------------------------------------------------------------- Kendall's tau


def test_kendall_tau_hand_example():
    # Of the 10 pairs, 6 are concordant and 4 discordant: tau = (6 - 4) / 10.
    # Exact two-sided p for n = 5: 2 * P(at most 4 inversions) = 2 * 49 / 120.
    result = kendall_tau([1, 2, 3, 4, 5], [3, 4, 1, 2, 5])
    assert result.tau == pytest.approx(0.2)
    assert result.p_value == pytest.approx(98 / 120)
    tau, p = result
    assert (tau, p) == (result.tau, result.p_value)


def test_kendall_tau_aligns_keyed_rankings_by_group():
    humans = {"G1": 1, "G2": 2, "G3": 3, "G4": 4}
    models = pd.Series({"G4": 40.0, "G3": 30.0, "G2": 20.0, "G1": 10.0})
    assert kendall_tau(humans, models).tau == pytest.approx(1.0)
    assert kendall_tau(humans, {"G1": 4, "G2": 3, "G3": 2, "G4": 1}).tau == pytest.approx(-1.0)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ({"G1": 1, "G2": 2}, {"G1": 1, "G3": 2}),
        ([1, 2, 3], [1, 2]),
        ([1], [1]),
        ({"G1": 1, "G2": 2}, [1, 2]),
    ],
)
def test_kendall_tau_rejects_mismatched_or_too_short_rankings(a, b):
    with pytest.raises(ValueError):
        kendall_tau(a, b)


# --------------------------------------------------------------------------- simulator


def test_simulation_is_reproducible_and_complete():
    charts = make_charts(questions_per_group=2)
    first = simulate_trials(charts, 30, seed=7, unanswered_rate=0.05)
    again = simulate_trials(charts, 30, seed=7, unanswered_rate=0.05)
    other = simulate_trials(charts, 30, seed=8, unanswered_rate=0.05)
    pd.testing.assert_frame_equal(first.trials, again.trials)
    assert first.failed_attention == again.failed_attention
    assert not first.trials["correct"].equals(other.trials["correct"])
    assert len(first.trials) == 30 * len(charts)
    assert (
        first.trials.groupby("participant")["position"]
        .apply(lambda p: sorted(p) == list(range(len(charts))))
        .all()
    )
    assert set(first.group_effects.columns) >= {"group", "manipulation", "true_log_odds_effect"}


def test_simulated_hmi_converges_on_the_expected_hmi():
    groups = pd.DataFrame({"group": ["G1", "G2"], "manipulation": ["a", "b"]})
    charts = make_charts(groups, questions_per_group=2)
    study = simulate_trials(
        charts,
        4000,
        seed=3,
        base_error={"G1": 0.1, "G2": 0.3},
        manipulation_effect={"G1": 2.0, "G2": 0.0},
        unanswered_rate=0.05,
        attention_fail_rate=0.2,
    )
    observed = chart_hmi(study.included_trials).set_index("chart_id")["hmi"]
    expected = study.charts.set_index("chart_id")["expected_hmi"]
    np.testing.assert_allclose(observed.loc[expected.index], expected, atol=0.03)
    failed = set(study.failed_attention)
    assert failed == set(
        study.participants.loc[~study.participants["attention_passed"], "participant"]
    )
    assert 0.15 < len(failed) / 4000 < 0.25
    assert not set(study.included_trials["participant"]) & failed


def test_simulator_rejects_bad_charts_and_rates():
    charts = make_charts(questions_per_group=1)
    with pytest.raises(ValueError, match="version"):
        simulate_trials(charts.assign(version=3), 5, seed=0)
    with pytest.raises(ValueError, match="no value for group"):
        simulate_trials(charts, 5, seed=0, manipulation_effect={"G1": 1.0})
    with pytest.raises(ValueError, match="between 0 and 1"):
        simulate_trials(charts, 5, seed=0, attention_fail_rate=1.5)


def test_attach_chart_meta_refuses_trials_for_unknown_charts():
    charts = make_charts(questions_per_group=1)
    with pytest.raises(ValueError, match="unknown chart"):
        attach_chart_meta(_trials("nope_1", [True]), charts)
    joined = attach_chart_meta(_trials("G3_Q1_2", [True]), charts)
    assert joined.loc[0, "manipulation"] == "inverted y-axis"
