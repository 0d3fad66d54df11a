"""Whether a model's justification names the planted manipulation."""

import math

import pandas as pd
import pytest

from analysis.justifications import justification_report, mentions_manipulation
from analysis.tests.manipulation_data import VOCABULARIES


@pytest.mark.parametrize(
    ("slug", "text", "phrase"),
    [
        ("truncated_y_axis", "The y-axis is TRUNCATED, exaggerating the rise.", "truncated"),
        ("truncated_y_axis", "The y axis does not start at zero.", "does not start at zero"),
        ("truncated_y_axis", "The y-axis doesn’t start at zero.", "doesn't start at zero"),
        ("truncated_y_axis", "No gridlines, but the axis is truncated.", "truncated"),
        ("inverted_y_axis", "Higher values at the bottom: it is upside-down.", "upside down"),
        ("inverted_y_axis", "Not only is the axis inverted, it is unlabeled.", "inverted"),
        ("bar_3d", "The 3-D perspective makes the front bar look taller.", "3d"),
        ("bar_3d", "A 3 D effect hides where the bars end.", "3d"),
        ("bar_3d", "The bars are three dimensional.", "three-dimensional"),
        ("log_y_axis", "It uses a log-scale on the y axis.", "log scale"),
        ("log_y_axis", "A Logarithmic Y-Axis compresses large values.", "logarithmic"),
        ("pictorial_bars", "The icons grow in area as well as height.", "icon"),
        ("dual_axes", "Two y axes with different scales.", "two y-axes"),
        ("pie_3d_popout", "One slice is pulled out and the pie is tilted.", "pulled out"),
    ],
)
def test_it_finds_the_manipulation_named_in_many_spellings(slug, text, phrase):
    match = mentions_manipulation(text, VOCABULARIES[slug])
    assert match.matched
    assert phrase in match.phrases


@pytest.mark.parametrize(
    ("slug", "text"),
    [
        ("truncated_y_axis", "The axis is not truncated."),
        ("truncated_y_axis", "The axis isnt truncated at all."),
        ("truncated_y_axis", "No manipulation here; the chart is honest."),
        ("inverted_y_axis", "The y-axis is not inverted."),
        ("inverted_y_axis", "The chart is truncated and not inverted."),
        ("bar_3d", "There is no 3D effect."),
        ("bar_3d", "Drawn without any 3-D perspective."),
        ("log_y_axis", "The scale is linear."),
        ("pictorial_bars", "The bars were rearranged."),  # "area" inside a word
        ("dual_axes", "A single axis."),
        ("inverted_color_scale", "Nothing unusual about the map."),
    ],
)
def test_it_does_not_count_negated_or_absent_mentions(slug, text):
    assert not mentions_manipulation(text, VOCABULARIES[slug]).matched


def test_negated_phrases_are_reported_apart():
    match = mentions_manipulation("The axis is not truncated.", ["truncated", "baseline"])
    assert (match.matched, match.phrases, match.negated) == (False, [], ["truncated"])


def test_one_plain_mention_outweighs_a_negated_one():
    text = "At first it looks like it is not truncated, but the axis is truncated."
    assert mentions_manipulation(text, ["truncated"]).phrases == ["truncated"]


def test_a_missing_justification_matches_nothing():
    assert not mentions_manipulation(None, ["truncated"]).matched
    assert not mentions_manipulation("", ["truncated"]).matched


def test_the_negation_window_is_five_words_in_the_same_clause():
    far = "It is not the case, I think, that anything here is truncated."
    assert mentions_manipulation(far, ["truncated"]).matched  # a comma ends the clause
    near = "It does not seem to really be truncated."
    assert not mentions_manipulation(near, ["truncated"]).matched


# --------------------------------------------------------------------------- report


def _rows():
    rows = []
    for model, named in (("A", [True, True, False]), ("B", [False, False, False])):
        for i, (hmi, says) in enumerate(zip([0.8, 0.6, 0.2], named, strict=True), start=1):
            rows.append(
                {
                    "model": model,
                    "chart_id": f"G{i}_Q1_2",
                    "group": f"G{i}",
                    "version": 2,
                    "manipulation": "truncated_y_axis",
                    "hmi": hmi,
                    "justification": "The axis is truncated." if says else "Looks fine.",
                }
            )
        rows.append(
            {
                "model": model,
                "chart_id": "G1_Q1_1",
                "group": "G1",
                "version": 1,
                "manipulation": "truncated_y_axis",
                "hmi": 0.1,
                "justification": "Truncated axis!" if model == "B" else "Honest chart.",
            }
        )
    return rows


def test_the_report_counts_named_manipulations_per_model_by_hand():
    report = justification_report(_rows(), VOCABULARIES)
    a = report.per_model.set_index("model").loc["A"]
    assert (a["n_manipulated"], a["n_scored"], a["n_named"]) == (3, 3, 2)
    assert a["share_named"] == pytest.approx(2 / 3)
    assert a["mean_hmi_named"] == pytest.approx(0.7)
    assert a["mean_hmi_not_named"] == pytest.approx(0.2)
    # Point-biserial r of HMI (0.8, 0.6, 0.2) with named (1, 1, 0): 0.9449.
    assert a["hmi_r"] == pytest.approx(0.944911, abs=1e-6)
    assert (a["n_plain_scored"], a["false_alarm_rate"]) == (1, 0.0)
    b = report.per_model.set_index("model").loc["B"]
    assert b["share_named"] == 0 and b["false_alarm_rate"] == 1.0
    assert math.isnan(b["hmi_r"]) and "none" in b["message"]
    groups = report.by_group[report.by_group["model"] == "A"].set_index("group")
    assert groups["share_named"].tolist() == [1.0, 1.0, 0.0]
    assert groups.loc["G1", "hmi"] == pytest.approx(0.8)


def test_rows_that_cannot_be_scored_say_why():
    rows = [
        {"model": "A", "chart_id": "G1_Q1_2", "version": 2, "manipulation": "truncated_y_axis",
         "justification": None},
        {"model": "A", "chart_id": "G2_Q1_2", "version": 2, "manipulation": "mystery",
         "justification": "odd"},
        {"model": "A", "chart_id": "G3_Q1_1", "version": 1, "manipulation": "none",
         "justification": "fine"},
    ]  # fmt: skip
    report = justification_report(rows, VOCABULARIES)
    statuses = report.charts["status"].tolist()
    assert statuses[0] == "no justification"
    assert "no vocabulary" in statuses[1]
    assert statuses[2] == "no planted manipulation to look for"
    row = report.per_model.iloc[0]
    assert (row["n_manipulated"], row["n_scored"]) == (2, 0)
    assert math.isnan(row["share_named"])


def test_charts_supply_the_pair_manipulation_for_false_alarms():
    charts = pd.DataFrame(
        {
            "chart_id": ["G1_Q1_1", "G1_Q1_2"],
            "group": ["G1", "G1"],
            "version": [1, 2],
            "manipulation": ["none", "log_y_axis"],
        }
    )
    rows = pd.DataFrame(
        {
            "model": ["A", "A"],
            "chart_id": ["G1_Q1_1", "G1_Q1_2"],
            "justification": ["This is a log scale.", "Linear, nothing odd."],
        }
    )
    report = justification_report(rows, VOCABULARIES, charts=charts)
    row = report.per_model.iloc[0]
    assert (row["n_named"], row["n_plain_named"]) == (0, 1)
    assert report.charts["manipulation"].tolist() == ["log_y_axis", "log_y_axis"]
    with pytest.raises(ValueError, match="unknown chart"):
        justification_report(rows.assign(chart_id="G9_Q1_1"), VOCABULARIES, charts=charts)
