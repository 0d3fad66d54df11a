"""SVG figures: Figure 2 style sorted HMI bars and the per-group paired plot."""

import xml.etree.ElementTree as ET

import numpy as np
import pandas as pd
import pytest

from analysis.hmi import chart_hmi, group_table
from analysis.hmi_plots import paired_group_svg, sorted_hmi_svg
from analysis.simulate import make_charts, simulate_trials

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def charts():
    return make_charts(questions_per_group=2)


@pytest.fixture(scope="module")
def hmi_frame(charts):
    study = simulate_trials(charts, 40, seed=5)
    return chart_hmi(study.included_trials).merge(charts[["chart_id", "version"]], on="chart_id")


def _texts(svg):
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    return " ".join("".join(node.itertext()) for node in root.iter(f"{SVG}text"))


def test_sorted_hmi_svg_is_valid_svg_naming_every_chart(hmi_frame):
    svg = sorted_hmi_svg(hmi_frame)
    texts = _texts(svg)
    for chart_id in hmi_frame["chart_id"]:
        assert chart_id in texts
    assert "non-manipulated" in texts and "manipulated" in texts


def test_sorted_hmi_svg_orders_charts_by_hmi():
    frame = pd.DataFrame(
        {
            "chart_id": ["B_1", "A_2", "C_1"],
            "hmi": [0.5, 0.9, 0.1],
            "ci_low": [0.3, 0.7, 0.0],
            "ci_high": [0.7, 1.0, 0.3],
            "version": [1, 2, 1],
        }
    )
    texts = _texts(sorted_hmi_svg(frame))
    assert texts.index("C_1") < texts.index("B_1") < texts.index("A_2")


def test_sorted_hmi_svg_is_byte_stable(hmi_frame):
    assert sorted_hmi_svg(hmi_frame) == sorted_hmi_svg(hmi_frame)


def test_sorted_hmi_svg_leaves_out_unanswered_charts_and_says_so():
    frame = pd.DataFrame(
        {"chart_id": ["G1_Q1_1", "G1_Q1_2"], "hmi": [0.2, np.nan], "version": [1, 2]}
    )
    texts = _texts(sorted_hmi_svg(frame))
    assert "G1_Q1_1" in texts and "G1_Q1_2" not in texts
    assert "1 chart(s) without answers" in texts


def test_sorted_hmi_svg_shows_a_placeholder_when_empty():
    empty = pd.DataFrame(columns=["chart_id", "hmi", "version"])
    assert "No HMI values yet" in _texts(sorted_hmi_svg(empty))


def test_sorted_hmi_svg_rejects_missing_columns():
    with pytest.raises(ValueError, match="version"):
        sorted_hmi_svg(pd.DataFrame({"chart_id": ["a"], "hmi": [0.1]}))


def test_paired_group_svg_labels_every_group(hmi_frame, charts):
    table = group_table(hmi_frame, charts)
    texts = _texts(paired_group_svg(table))
    for group, manipulation in zip(table["group"], table["manipulation"], strict=True):
        assert f"{group}  " in texts
        assert manipulation in texts


def test_paired_group_svg_draws_a_group_with_one_side_missing():
    table = pd.DataFrame(
        {
            "group": ["G1", "G2"],
            "manipulation": ["cost in $", "dual axes"],
            "hmi_non_manipulated": [0.1, np.nan],
            "hmi_manipulated": [0.6, 0.4],
        }
    )
    texts = _texts(paired_group_svg(table))
    assert "G1" in texts and "G2" in texts and "cost in $" in texts


def test_paired_group_svg_shows_a_placeholder_when_empty():
    empty = pd.DataFrame(columns=["group", "hmi_non_manipulated", "hmi_manipulated"])
    assert "No group HMI values yet" in _texts(paired_group_svg(empty))
