"""The humans beside the models: pooled FACT error rates of included participants (Figures 3, 6)."""

import xml.etree.ElementTree as ET

import numpy as np
import pandas as pd
import pytest

from analysis.hmi import attach_chart_meta, chart_hmi, chi_square_manipulation
from analysis.model_eval import (
    HUMANS,
    fact_error_rates,
    fact_error_svg,
    fact_group_svg,
    human_error_rates,
    human_fact_rates,
)

CHARTS = pd.DataFrame(
    [
        {"chart_id": f"{g}_Q1_{v}", "group": g, "question": f"{g}_Q1", "version": v,
         "manipulation": f"manip {g}" if v == 2 else None}
        for g in ("G1", "G2")
        for v in (1, 2)
    ]
)  # fmt: skip
# G1: 10 participants, 1 wrong on the plain chart and 6 on the manipulated one;
# G2: 8 participants, 0 and 2 wrong.
COUNTS = pd.DataFrame(
    {
        "chart_id": ["G1_Q1_1", "G1_Q1_2", "G2_Q1_1", "G2_Q1_2"],
        "n": [10, 10, 8, 8],
        "n_wrong": [1, 6, 0, 2],
    }
)


def _trials(counts: pd.DataFrame, unanswered: int = 0) -> pd.DataFrame:
    """One row per participant x chart reproducing ``counts``; the first wrong ones unanswered."""
    rows = []
    for chart in counts.to_dict("records"):
        for i in range(chart["n"]):
            wrong = i < chart["n_wrong"]
            correct = (None if i < unanswered else False) if wrong else True
            rows.append({"participant": f"P{i}", "chart_id": chart["chart_id"], "correct": correct})
    return pd.DataFrame(rows).astype({"correct": object})


def test_the_humans_rates_are_errors_over_all_included_trials_with_wilson_intervals():
    rates = human_fact_rates(COUNTS, CHARTS)
    overall = rates.overall.set_index("scope")
    assert set(overall["model"]) == {HUMANS}
    # Hand-worked: plain 1 of 18, manipulated 8 of 18, all 9 of 36.
    assert overall.loc["non-manipulated", ["n", "n_errors"]].tolist() == [18, 1]
    assert overall.loc["manipulated", ["n", "n_errors"]].tolist() == [18, 8]
    assert overall.loc["all", ["n", "n_errors"]].tolist() == [36, 9]
    assert overall.loc["all", "error_rate"] == 0.25
    # Wilson, 9 of 36, z = 1.95996: centre (0.25 + z^2/72) / (1 + z^2/36) = 0.274105,
    # half-width z / 1.106707 * sqrt(0.25 * 0.75 / 36 + z^2 / 5184) = 0.136599.
    assert overall.loc["all", "ci_low"] == pytest.approx(0.137505, abs=2e-6)
    assert overall.loc["all", "ci_high"] == pytest.approx(0.410705, abs=2e-6)
    by_group = rates.by_group.set_index(["group", "scope"])
    assert by_group.loc[("G1", "manipulated"), ["n", "n_errors"]].tolist() == [10, 6]
    assert by_group.loc[("G1", "manipulated"), "error_rate"] == 0.6
    assert by_group.loc[("G2", "non-manipulated"), ["error_rate", "ci_low"]].tolist() == [0, 0]
    assert by_group.loc[("G2", "manipulated"), "manipulation"] == "manip G2"


def test_the_all_rate_is_the_n_weighted_mean_hmi():
    hmi = COUNTS["n_wrong"] / COUNTS["n"]
    overall = human_fact_rates(COUNTS, CHARTS).overall.set_index("scope")
    assert overall.loc["all", "error_rate"] == pytest.approx(np.average(hmi, weights=COUNTS["n"]))


def test_the_humans_chi_square_is_the_hand_worked_yates_statistic():
    # [[1, 17], [8, 10]]: expected 4.5 and 13.5 errors/correct per row, |O - E| = 3.5,
    # so chi2 = 2 * 3^2 / 4.5 + 2 * 3^2 / 13.5 = 5.3333 with Yates' correction.
    row = human_fact_rates(COUNTS, CHARTS).chi_square.iloc[0]
    assert row["model"] == HUMANS
    assert (row["n_non_manipulated"], row["errors_non_manipulated"]) == (18, 1)
    assert (row["n_manipulated"], row["errors_manipulated"]) == (18, 8)
    assert row["chi2"] == pytest.approx(16 / 3)
    assert row["yates_correction"]


def test_counts_and_trials_agree_with_the_participants_own_chi_square():
    trials = _trials(COUNTS, unanswered=1)
    overall, by_group = human_error_rates(trials, CHARTS)
    rates = human_fact_rates(chart_hmi(trials)[["chart_id", "n", "n_wrong"]], CHARTS)
    pd.testing.assert_frame_equal(overall, rates.overall)
    pd.testing.assert_frame_equal(by_group, rates.by_group)
    # Unanswered trials are errors, as in HMI: still 9 of 36.
    assert overall.set_index("scope").loc["all", "n_errors"] == 9
    independent = chi_square_manipulation(attach_chart_meta(trials, CHARTS)).iloc[0]
    assert independent["scope"] == "overall"
    assert rates.chi_square.iloc[0]["chi2"] == pytest.approx(independent["chi2"])
    assert rates.chi_square.iloc[0]["p_value"] == pytest.approx(independent["p_value"])


def test_the_humans_frames_stack_with_the_models():
    answers = pd.DataFrame(
        {"model": "A", "chart_id": CHARTS["chart_id"], "correct": [True, False, True, True]}
    ).astype({"correct": object})
    models = fact_error_rates(answers, CHARTS)
    humans = human_fact_rates(COUNTS, CHARTS)
    for name in ("overall", "by_group", "chi_square"):
        assert list(getattr(humans, name).columns) == list(getattr(models, name).columns)
    assert humans.coverage.empty


@pytest.mark.parametrize(
    ("counts", "message"),
    [
        (COUNTS.assign(n_wrong=[1, 11, 0, 2]), "0 <= n_wrong <= n"),
        (COUNTS.assign(n=[10, None, 8, 8]), "whole numbers"),
        (pd.concat([COUNTS, COUNTS.iloc[:1]]), "more than one row"),
        (COUNTS.assign(chart_id=["G1_Q1_1", "G1_Q1_2", "G2_Q1_1", "G9_Q1_2"]), "unknown"),
        (COUNTS.drop(columns="n_wrong"), "missing column"),
    ],
)
def test_bad_counts_are_refused(counts, message):
    with pytest.raises(ValueError, match=message):
        human_fact_rates(counts, CHARTS)


def _ids(svg: str) -> list[str]:
    root = ET.fromstring(svg)
    return [e.get("id") for e in root.iter() if (e.get("id") or "").startswith("humans")]


def _texts(svg: str) -> list[str]:
    return [e.text for e in ET.fromstring(svg).iter() if e.tag.endswith("text") and e.text]


def test_figure_3_draws_the_humans_first_hatched_and_labelled():
    answers = pd.DataFrame(
        {"model": "A model", "chart_id": CHARTS["chart_id"], "correct": [True] * 4}
    ).astype({"correct": object})
    models = fact_error_rates(answers, CHARTS).overall
    humans = human_fact_rates(COUNTS, CHARTS).overall
    # Given after the models, still drawn first.
    svg = fact_error_svg(pd.concat([models, humans]))
    assert _ids(svg) == ["humans-non-manipulated", "humans-manipulated", "humans-all"]
    texts = _texts(svg)
    assert texts.index(HUMANS) < texts.index("A model")
    assert f"{HUMANS} (study participants)" in texts
    assert "<pattern" in svg  # the hatch
    assert "<pattern" not in fact_error_svg(models)
    assert _ids(fact_error_svg(models)) == []


def test_figure_6_puts_the_humans_columns_first_behind_a_separator():
    answers = pd.DataFrame(
        {"model": "A model", "chart_id": CHARTS["chart_id"], "correct": [True] * 4}
    ).astype({"correct": object})
    models = fact_error_rates(answers, CHARTS).by_group
    humans = human_fact_rates(COUNTS, CHARTS).by_group
    svg = fact_group_svg(pd.concat([models, humans]))
    assert _ids(svg) == ["humans-separator"]
    texts = _texts(svg)
    # The cell of G1 manipulated for the humans reads 0.60, the model's 0.00. Column labels
    # read "<who> · plain" and "<who> · manip.": the humans' come first.
    first = [
        next(i for i, t in enumerate(texts) if t.startswith(who)) for who in (HUMANS, "A model")
    ]
    assert "0.60" in texts and first[0] < first[1]
    assert _ids(fact_group_svg(models)) == []
