"""Model evaluation: MIND number extraction, FACT error rates, MIND metrics, log odds, figures."""

import math
import xml.etree.ElementTree as ET

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from analysis.log_odds import MIXED_ESTIMATOR, log_odds_by_group
from analysis.model_eval import (
    EMPIRICAL_ESTIMATOR,
    compare_rankings,
    empirical_log_odds,
    extract_probability,
    fact_error_rates,
    fact_error_svg,
    fact_group_svg,
    human_error_rates,
    log_odds_comparison_svg,
    mind_arrows_svg,
    mind_group_arrows,
    mind_metrics,
    mind_scatter_svg,
    model_population_log_odds,
    simulate_model_answers,
)


def _charts(groups=("G1",), questions=2):
    rows = []
    for group in groups:
        for q in range(1, questions + 1):
            for version in (1, 2):
                rows.append(
                    {
                        "chart_id": f"{group}_Q{q}_{version}",
                        "group": group,
                        "version": version,
                        "manipulation": "truncated y-axis" if version == 2 else "none",
                    }
                )
    return pd.DataFrame(rows)


def _answers(model, outcomes):
    """outcomes: chart_id -> True / False / None."""
    return pd.DataFrame(
        {
            "model": model,
            "chart_id": list(outcomes),
            "correct": pd.Series(list(outcomes.values()), dtype=object),
        }
    )


def _parses_svg(svg):
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg")


# --------------------------------------------------------------------------- extraction


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0.35", 0.35),
        ("I predict 0.35 because the y-axis starts at 240.", 0.35),
        ("35%", 0.35),
        ("about 0.4.", 0.4),
        ("Prediction: .25", 0.25),
        ("1/3", 1 / 3),
        ("1 out of 3 students", 1 / 3),
        ("0,35", 0.35),
        ("35 percent of students", 0.35),
        ("**Prediction:** 0.35\n\n**Justification:** The axis starts at 240.", 0.35),
        ("The y-axis starts at 240, so I predict 0.6 of students will be misled.", 0.6),
        ("In 2019 there were 300 dogs. Prediction: 0.7", 0.7),
        ("1. Prediction: 0.7\n2. Justification: the 3D effect hides the bar ends", 0.7),
        ("Prediction (0-1): 0.35", 0.35),
        ("As a decimal number between 0 and 1, my prediction is 0.35", 0.35),
        ("0.35. I estimate 10% of people read the axis carefully.", 0.35),
        ("Roughly 0.4 of students. The fraction 0.2 of ...", 0.4),
        ("0.65 (65%)", 0.65),
        ("0.65 or 65%", 0.65),
        ("I predict that about 35% will be misled", 0.35),
        ("Predicted HMI: 0.4", 0.4),
        ("~0.45", 0.45),
        ("≈ 0.3", 0.3),
        ("0", 0.0),
        ("1", 1.0),
        ("G1_Q1_2: 0.5", 0.5),
        ("0.4\n\nThe chart uses 2 axes", 0.4),
        (0.25, 0.25),
    ],
)
def test_it_reads_the_prediction_from_free_text(text, expected):
    parsed = extract_probability(text)
    assert parsed.problem is None
    assert parsed.value == pytest.approx(expected)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (None, "no answer given"),
        ("   ", "no answer given"),
        ("Many students will be misled.", "no number found"),
        ("35", "outside [0, 1]"),
        ("120%", "outside [0, 1]"),
        ("-0.1", "outside [0, 1]"),
        (1.5, "outside [0, 1]"),
        ("0.3-0.4", "range or a choice"),
        ("between 0.3 and 0.4", "range or a choice"),
        ("0.3 to 0.4", "range or a choice"),
        ("0.3 or 0.4", "range or a choice"),
        ("1/0", "divides by zero"),
        ("1,234", "not a decimal"),
        # The answer opens with prose and has no labelled prediction: 2 is the
        # first number and is refused rather than skipped for the 0.4 later on.
        ("For the 2 years shown, I would say 0.4", "outside [0, 1]"),
    ],
)
def test_it_reports_rather_than_guesses(text, problem):
    parsed = extract_probability(text)
    assert parsed.value is None
    assert problem in parsed.problem


def test_a_justification_number_after_the_prediction_is_not_taken():
    assert extract_probability("0.2 - the y-axis starts at 240 instead of 0").value == 0.2
    assert extract_probability("0.2; the axis starts at 240").value == 0.2


# --------------------------------------------------------------------------- FACT


def test_fact_error_rates_match_hand_counts_with_wilson_intervals():
    charts = _charts(questions=3)
    answers = _answers(
        "A",
        {
            "G1_Q1_1": True,
            "G1_Q2_1": True,
            "G1_Q3_1": False,
            "G1_Q1_2": False,
            "G1_Q2_2": False,
            "G1_Q3_2": True,
        },
    )
    result = fact_error_rates(answers, charts)
    overall = result.overall.set_index("scope")
    assert overall.loc["non-manipulated", ["n", "n_errors"]].tolist() == [3, 1]
    assert overall.loc["manipulated", ["n", "n_errors"]].tolist() == [3, 2]
    assert overall.loc["all", ["n", "n_errors"]].tolist() == [6, 3]
    assert overall.loc["all", "error_rate"] == pytest.approx(0.5)
    # Wilson, 1 of 3: centre 0.42692, half-width 0.36542 (worked by hand).
    assert overall.loc["non-manipulated", "ci_low"] == pytest.approx(0.06149, abs=5e-5)
    assert overall.loc["non-manipulated", "ci_high"] == pytest.approx(0.79234, abs=5e-5)
    by_group = result.by_group.set_index("scope")
    assert by_group.loc["manipulated", "error_rate"] == pytest.approx(2 / 3)
    assert by_group.loc["manipulated", "manipulation"] == "truncated y-axis"
    assert result.coverage.iloc[0][["n_charts", "n_answered", "coverage"]].tolist() == [6, 6, 1.0]


def test_chi_square_per_model_matches_the_hand_worked_yates_statistic():
    # Table [[1, 9], [8, 2]]: every expected count is 4.5 or 5.5 and |O - E| = 3.5,
    # so chi2 = 2 * 3^2 / 4.5 + 2 * 3^2 / 5.5 = 7.2727 with Yates' correction.
    charts = _charts(questions=10)
    outcomes = {f"G1_Q{q}_1": q != 1 for q in range(1, 11)}
    outcomes |= {f"G1_Q{q}_2": q > 8 for q in range(1, 11)}
    result = fact_error_rates(_answers("A", outcomes), charts)
    row = result.chi_square.iloc[0]
    assert (row["errors_non_manipulated"], row["errors_manipulated"]) == (1, 8)
    assert row["chi2"] == pytest.approx(7.272727, abs=1e-6)
    assert row["p_value"] == pytest.approx(stats.chi2.sf(7.272727, 1), rel=1e-6)
    assert row["yates_correction"]
    plain = fact_error_rates(_answers("A", outcomes), charts, correction=False).chi_square
    assert plain.iloc[0]["chi2"] == pytest.approx(2 * 3.5**2 / 4.5 + 2 * 3.5**2 / 5.5)


def test_a_model_answering_only_some_charts_gets_coverage_and_rates_over_what_it_answered():
    charts = _charts(questions=2)
    answers = pd.concat(
        [
            _answers("full", dict.fromkeys(charts["chart_id"], True)),
            # Two of four charts answered: one row left blank, one absent.
            _answers("partial", {"G1_Q1_1": True, "G1_Q1_2": False, "G1_Q2_2": None}),
        ]
    )
    result = fact_error_rates(answers, charts)
    coverage = result.coverage.set_index("model")
    assert coverage.loc["partial", "n_answered"] == 2
    assert coverage.loc["partial", "coverage"] == pytest.approx(0.5)
    assert coverage.loc["partial", "missing"] == ["G1_Q2_1", "G1_Q2_2"]
    rates = result.overall[result.overall["model"] == "partial"].set_index("scope")
    assert rates.loc["manipulated", ["n", "n_errors", "error_rate"]].tolist() == [1, 1, 1.0]
    assert rates.loc["all", ["n", "n_errors"]].tolist() == [2, 1]
    full = result.chi_square.set_index("model").loc["full"]
    assert "every trial was correct" in full["message"] and math.isnan(full["chi2"])


def test_a_model_with_no_answers_gets_nan_rates_and_a_chi_square_message():
    charts = _charts()
    result = fact_error_rates(_answers("silent", {"G1_Q1_1": None}), charts)
    assert result.overall["n"].tolist() == [0, 0, 0]
    assert result.overall["error_rate"].isna().all()
    assert result.chi_square.iloc[0]["message"] == "chi-square undefined: no answered charts"


@pytest.mark.parametrize(
    ("answers", "message"),
    [
        (
            pd.DataFrame({"model": ["A", "A"], "chart_id": ["G1_Q1_1"] * 2, "correct": [True] * 2}),
            "more than one row",
        ),
        (pd.DataFrame({"model": ["A"], "chart_id": ["G9_Q1_1"], "correct": [True]}), "unknown"),
        (pd.DataFrame({"model": ["A"], "chart_id": ["G1_Q1_1"], "correct": ["yes"]}), "correct"),
    ],
)
def test_fact_error_rates_rejects_inconsistent_input(answers, message):
    with pytest.raises(ValueError, match=message):
        fact_error_rates(answers, _charts())


def test_human_error_rates_count_unanswered_as_wrong_like_hmi():
    charts = _charts(questions=1)
    trials = pd.DataFrame(
        {
            "participant": ["P1", "P1", "P2", "P2"],
            "chart_id": ["G1_Q1_1", "G1_Q1_2", "G1_Q1_1", "G1_Q1_2"],
            "correct": pd.Series([True, False, True, None], dtype=object),
        }
    )
    overall, by_group = human_error_rates(trials, charts)
    overall = overall.set_index("scope")
    assert overall.loc["manipulated", ["n", "n_errors"]].tolist() == [2, 2]
    assert overall.loc["all", "error_rate"] == pytest.approx(0.5)
    assert set(overall["model"]) == {"Humans"}
    assert len(by_group) == 2


# --------------------------------------------------------------------------- MIND


def _mind_fixture():
    hmi = pd.DataFrame(
        {"chart_id": ["G1_Q1_1", "G1_Q1_2", "G1_Q2_1", "G1_Q2_2"], "hmi": [0.1, 0.5, 0.5, 0.7]}
    )
    predictions = pd.DataFrame(
        {"model": "A", "chart_id": hmi["chart_id"], "prediction": [0.2, 0.4, 0.6, 0.9]}
    )
    return predictions, hmi


def test_mind_metrics_match_hand_worked_values():
    predictions, hmi = _mind_fixture()
    row = mind_metrics(predictions, hmi).iloc[0]
    # |m - a| = 0.1, 0.1, 0.1, 0.2: MAE 0.125, sample SD sqrt(0.0075 / 3) = 0.05.
    assert row["n"] == 4
    assert row["mae"] == pytest.approx(0.125)
    assert row["mae_sd"] == pytest.approx(0.05)
    # Sxy = 0.205, Sxx = 0.19, Syy = 0.2675.
    r = 0.205 / math.sqrt(0.19 * 0.2675)
    assert row["pearson_r"] == pytest.approx(r)
    # With n = 4 (2 degrees of freedom) the two-sided p-value is exactly 1 - |r|.
    assert row["pearson_p"] == pytest.approx(1 - r)
    assert row["slope"] == pytest.approx(0.205 / 0.19)
    assert row["intercept"] == pytest.approx(0.525 - 0.205 / 0.19 * 0.45)
    assert row["r_squared"] == pytest.approx(r**2)
    assert pd.isna(row["message"])


def test_mind_metrics_use_only_answered_charts_and_refuse_fewer_than_three():
    predictions, hmi = _mind_fixture()
    predictions = pd.concat(
        [
            predictions.assign(prediction=[0.2, 0.4, 0.6, np.nan]),
            pd.DataFrame({"model": "B", "chart_id": ["G1_Q1_1", "G1_Q1_2"], "prediction": 0.5}),
        ]
    )
    frame = mind_metrics(predictions, hmi).set_index("model")
    assert frame.loc["A", "n"] == 3 and frame.loc["A", "n_without_prediction"] == 1
    assert frame.loc["A", "mae"] == pytest.approx(0.1)
    assert frame.loc["B", "n"] == 2
    assert frame.loc["B", ["mae", "pearson_r", "slope"]].isna().all()
    assert "at least 3" in frame.loc["B", "message"]


def test_constant_predictions_keep_the_flat_fit_and_flag_r():
    predictions, hmi = _mind_fixture()
    row = mind_metrics(predictions.assign(prediction=0.5), hmi).iloc[0]
    assert row["mae"] == pytest.approx((0.4 + 0 + 0 + 0.2) / 4)
    assert row["slope"] == pytest.approx(0.0) and row["intercept"] == pytest.approx(0.5)
    assert math.isnan(row["pearson_r"]) and "all equal" in row["message"]


@pytest.mark.parametrize("drop", ["nan", "absent"])
def test_charts_without_hmi_are_counted_not_scored(drop):
    predictions, hmi = _mind_fixture()
    hmi = hmi.assign(hmi=[0.1, 0.5, 0.5, np.nan]) if drop == "nan" else hmi.iloc[:3]
    row = mind_metrics(predictions, hmi).iloc[0]
    assert (row["n"], row["n_without_hmi"]) == (3, 1)
    assert row["mae"] == pytest.approx(0.1)


def test_predictions_outside_the_unit_interval_are_refused():
    predictions, hmi = _mind_fixture()
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        mind_metrics(predictions.assign(prediction=[0.2, 0.4, 0.6, 35]), hmi)


def test_group_arrows_average_each_version_over_the_predicted_charts():
    charts = _charts(groups=("G1", "G2"), questions=2)
    hmi = pd.DataFrame({"chart_id": charts["chart_id"], "hmi": [0.1, 0.6, 0.3, 0.8, 0, 0, 0, 0]})
    predictions = pd.DataFrame(
        {
            "model": "A",
            "chart_id": ["G1_Q1_1", "G1_Q1_2", "G1_Q2_1", "G1_Q2_2", "G2_Q1_1"],
            "prediction": [0.2, 0.4, 0.4, np.nan, 0.5],
        }
    )
    arrows = mind_group_arrows(predictions, hmi, charts).set_index("group")
    g1 = arrows.loc["G1"]
    assert g1["n_non_manipulated"] == 2
    assert g1["hmi_non_manipulated"] == pytest.approx(0.2)
    assert g1["predicted_non_manipulated"] == pytest.approx(0.3)
    # The second manipulated chart has no prediction, so its HMI is left out too.
    assert g1["n_manipulated"] == 1
    assert g1["hmi_manipulated"] == pytest.approx(0.6)
    assert g1["predicted_manipulated"] == pytest.approx(0.4)
    assert arrows.loc["G2", "n_manipulated"] == 0 and math.isnan(
        arrows.loc["G2", "hmi_manipulated"]
    )
    assert g1["manipulation"] == "truncated y-axis"


# --------------------------------------------------------------------------- log odds


def test_model_population_log_odds_is_the_mixed_model_with_the_model_as_participant():
    charts = _charts(groups=("G1", "G2"), questions=3)
    rng = np.random.default_rng(3)
    rows = []
    for model in ("m1", "m2", "m3", "m4"):
        for chart in charts.itertuples():
            p_error = 0.2 if chart.version == 1 else (0.7 if chart.group == "G1" else 0.4)
            rows.append(
                {"model": model, "chart_id": chart.chart_id, "correct": rng.random() >= p_error}
            )
    answers = pd.DataFrame(rows)
    answers["correct"] = answers["correct"].astype(object)
    answers.loc[0, "correct"] = None  # unanswered: left out, not an error
    ours = model_population_log_odds(answers, charts, seed=1, include_gee=False)
    kept = answers[answers["correct"].notna()].rename(columns={"model": "participant"})
    meta = charts.assign(question=charts["chart_id"].str[:-2])
    expected = log_odds_by_group(kept.merge(meta, on="chart_id"), seed=1, include_gee=False)
    pd.testing.assert_frame_equal(ours, expected)
    assert (ours["estimator"] == MIXED_ESTIMATOR).all()


def test_empirical_log_odds_matches_the_haldane_anscombe_formula():
    charts = _charts(questions=4)
    outcomes = {f"G1_Q{q}_1": True for q in range(1, 5)}
    outcomes |= {f"G1_Q{q}_2": q == 4 for q in range(1, 5)}
    row = empirical_log_odds(_answers("A", outcomes), charts).iloc[0]
    # a = 3 errors, b = 1 correct (manipulated); c = 0, d = 4 (plain); +0.5 each.
    assert row["log_odds_ratio"] == pytest.approx(math.log(3.5 * 4.5 / (1.5 * 0.5)))
    assert row["se"] == pytest.approx(math.sqrt(1 / 3.5 + 1 / 1.5 + 1 / 0.5 + 1 / 4.5))
    assert row["p_n"] == pytest.approx(0.5 / 5) and row["p_m"] == pytest.approx(3.5 / 5)
    assert row["estimator"] == EMPIRICAL_ESTIMATOR


def test_empirical_and_mixed_log_odds_tables_have_the_same_columns_in_the_same_order():
    charts = _charts(questions=4)
    outcomes = {f"G1_Q{q}_{v}": q % 2 == 0 for q in range(1, 5) for v in (1, 2)}
    empirical = empirical_log_odds(_answers("A", outcomes), charts)
    assert list(empirical.columns) == [
        "group", "manipulation", "estimator", "n_trials", "p_n", "p_m",
        "log_odds_ratio", "se", "ci_low", "ci_high", "interval", "message",
    ]  # fmt: skip


def test_compare_rankings_gives_kendalls_tau_over_groups_both_sides_have():
    human = {"G1": 1.0, "G2": 2.0, "G3": 3.0, "G4": 4.0, "G5": 0.5}
    model = {"G1": 1.0, "G2": 3.0, "G3": 2.0, "G4": 4.0, "G5": float("nan")}
    result = compare_rankings(human, model)
    # 6 pairs: 5 concordant, 1 discordant -> tau = (5 - 1) / 6.
    assert result.tau == pytest.approx(4 / 6)
    assert result.groups == ["G1", "G2", "G3", "G4"] and result.n_groups == 4
    assert "G5" in result.left_out and "model" in result.left_out["G5"]


def test_compare_rankings_reads_log_odds_frames_and_explains_too_few_groups():
    frame = pd.DataFrame(
        {
            "group": ["G1", "G1", "G2", "G2"],
            "estimator": [MIXED_ESTIMATOR, "other", MIXED_ESTIMATOR, "other"],
            "log_odds_ratio": [1.0, 9.0, np.nan, 9.0],
            "message": [None, None, "every non-manipulated answer was correct", None],
        }
    )
    result = compare_rankings(frame, frame)
    assert math.isnan(result.tau) and result.n_groups == 1
    assert "every non-manipulated answer was correct" in result.left_out["G2"]
    assert "at least 2 groups" in result.message


# --------------------------------------------------------------------------- figures


def test_every_figure_is_an_svg_document_including_the_empty_ones():
    charts = _charts(groups=("G1", "G2"), questions=2)
    hmi = pd.DataFrame({"chart_id": charts["chart_id"], "hmi": np.linspace(0.05, 0.9, 8)})
    answers = pd.concat(
        [
            _answers(m, dict(zip(charts["chart_id"], [True, False] * 4, strict=True)))
            for m in ("A", "B $1 and $2")
        ]
    )
    predictions = answers.assign(prediction=np.tile(np.linspace(0.1, 0.8, 8), 2))
    rates = fact_error_rates(answers, charts)
    humans, _ = human_error_rates(
        answers.rename(columns={"model": "participant"}).drop(
            columns="prediction", errors="ignore"
        ),
        charts,
    )
    metrics = mind_metrics(predictions, hmi)
    arrows = mind_group_arrows(predictions, hmi, charts)
    log_odds = pd.DataFrame(
        {"group": ["G1", "G2"], "log_odds_ratio": [1.5, np.nan], "manipulation": ["x", "y"]}
    )
    figures = [
        fact_error_svg(pd.concat([humans, rates.overall])),
        fact_group_svg(rates.by_group),
        mind_scatter_svg(predictions, hmi, metrics=metrics, charts=charts),
        mind_arrows_svg(arrows),
        log_odds_comparison_svg(log_odds, log_odds.assign(log_odds_ratio=[0.5, 2.0])),
        fact_error_svg(rates.overall.iloc[0:0]),
        mind_scatter_svg(predictions.iloc[0:0], hmi),
        mind_arrows_svg(arrows.iloc[0:0]),
    ]
    for svg in figures:
        _parses_svg(svg)
    # Dollar signs in a model name are shown as written, not read as mathtext.
    assert ">B $1 and $2<" in figures[0]


# --------------------------------------------------------------------------- simulated models


def test_the_two_simulated_models_behave_differently_end_to_end():
    from analysis.justifications import justification_report
    from analysis.simulate import chartom_groups, make_charts
    from analysis.tests.manipulation_data import SIMULATED_SLUGS, VOCABULARIES

    charts = make_charts(questions_per_group=2)
    charts["manipulation"] = [SIMULATED_SLUGS[m] for m in charts["manipulation"]]
    table = chartom_groups().set_index("group")
    hmi = pd.DataFrame(
        {
            "chart_id": charts["chart_id"],
            "hmi": [
                table.loc[g, "hmi_manipulated" if v == 2 else "hmi_non_manipulated"]
                for g, v in zip(charts["group"], charts["version"], strict=True)
            ],
        }
    )
    vocabularies = dict(VOCABULARIES)
    answers = simulate_model_answers(charts, hmi, vocabularies=vocabularies, seed=4)
    again = simulate_model_answers(charts, hmi, vocabularies=vocabularies, seed=4)
    pd.testing.assert_frame_equal(answers, again)

    parsed = [extract_probability(t) for t in answers["mind_answer"]]
    predictions = answers.assign(prediction=[p.value for p in parsed])
    metrics = mind_metrics(predictions, hmi).set_index("model")
    assert metrics.loc["perceptive-model", "mae"] < metrics.loc["flat-model", "mae"]
    assert metrics.loc["perceptive-model", "pearson_r"] > 0.8
    assert abs(metrics.loc["flat-model", "slope"]) < 0.2
    # The flat model skips charts and writes some MIND answers without a number.
    assert metrics.loc["flat-model", "n_without_prediction"] > 0
    problems = [p.problem for p in parsed if p.problem]
    assert problems and set(problems) <= {"no answer given", "no number found"}

    rates = fact_error_rates(answers, charts)
    coverage = rates.coverage.set_index("model")["coverage"]
    assert coverage["perceptive-model"] == 1.0 and coverage["flat-model"] < 1.0
    chi = rates.chi_square.set_index("model")
    assert chi.loc["perceptive-model", "p_value"] < 0.05

    rows = answers.rename(columns={"mind_justification": "justification"}).merge(
        charts[["chart_id", "version", "manipulation", "group"]], on="chart_id"
    )
    report = justification_report(rows.merge(hmi, on="chart_id"), vocabularies)
    share = report.per_model.set_index("model")["share_named"]
    assert share["perceptive-model"] > share["flat-model"]
