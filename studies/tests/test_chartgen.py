"""The chart generator: spec validation, the demo fixtures and deterministic rendering."""

from __future__ import annotations

import copy
import hashlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from matplotlib.patches import Ellipse, Polygon
from PIL import Image

from studies.answer_types import get_type
from studies.chartgen import (
    MANIPULATIONS,
    SIZE_PX,
    ChartSpec,
    SpecError,
    chart_figure,
    load_specs,
    render_chart,
    render_pair,
    spec_from_dict,
)
from studies.chartgen.pies import PALETTE

ROOT = Path(__file__).resolve().parents[2]
SPEC_FILE = ROOT / "fixtures" / "chart_specs.json"
CAPTION_FILE = ROOT / "fixtures" / "caption_charts.json"
SPEC_IDS = [item["id"] for item in json.loads(SPEC_FILE.read_text(encoding="utf-8"))]
CAPTION_MODELS = {"gpt4v", "bard", "deplot", "matcha", "unichart", "chartt5"}
ERROR_LABELS = {
    "value_error",
    "label_error",
    "trend_error",
    "magnitude_error",
    "ooc_error",
    "grammatical_error",
    "nonsense_error",
}


@pytest.fixture(scope="module")
def specs() -> dict[str, ChartSpec]:
    return {spec.id: spec for spec in load_specs(SPEC_FILE)}


@pytest.fixture(scope="module")
def rendered(specs) -> dict[str, tuple[bytes, bytes]]:
    return {spec_id: render_pair(spec) for spec_id, spec in specs.items()}


def open_png(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


# A minimal valid spec per chart type; tests change one thing at a time.
DATA = {
    "line": {"categories": [2000, 2001, 2003, 2008], "values": [10, 12, 15, 19]},
    "bar": {"categories": ["A", "B", "C"], "values": [250, 300, 280]},
    "scatter": {"points": [[1, 10], [2, 40], [3, 90], [4, 200]]},
    "pie": {"categories": ["A", "B", "C", "D"], "values": [40, 30, 20, 10]},
    "map": {
        "tiles": [
            {"region": "N", "row": 0, "col": 1, "value": 5},
            {"region": "W", "row": 1, "col": 0, "value": 12},
            {"region": "E", "row": 1, "col": 2, "value": 20},
            {"region": "S", "row": 2, "col": 1, "value": 8},
        ]
    },
}
TWO_SERIES = {
    "categories": [2019, 2020, 2021],
    "series": [{"name": "P", "values": [50, 55, 60]}, {"name": "Q", "values": [20, 35, 58]}],
}


def make(chart_type: str = "bar", manipulation: str = "truncated_y_axis", **fields) -> dict:
    raw = {
        "id": "G1_Q1",
        "group": "G1",
        "chart_type": chart_type,
        "manipulation": manipulation,
        "title": "A chart",
        "x_label": "x",
        "y_label": "y",
        "data": copy.deepcopy(
            TWO_SERIES if manipulation == "dual_axes" else DATA.get(chart_type, DATA["bar"])
        ),
        "question": "Which is larger? 1. A 2. B",
        "answer_type": "multiple_choice",
        "answer": 2,
    }
    raw.update(fields)
    return raw


def problems_of(raw) -> list[str]:
    with pytest.raises(SpecError) as excinfo:
        spec_from_dict(raw)
    return excinfo.value.fields


# The demo benchmark ------------------------------------------------------------------------


def test_the_demo_benchmark_plants_every_manipulation_with_every_answer_type(specs):
    assert len(specs) >= 12
    assert {s.manipulation for s in specs.values()} == set(MANIPULATIONS)
    assert {s.answer_type for s in specs.values()} == {"multiple_choice", "free_text", "ranking"}
    assert all(s.id.startswith(s.group + "_") for s in specs.values())


@pytest.mark.parametrize("spec_id", SPEC_IDS)
def test_both_versions_are_pngs_of_the_expected_size(rendered, spec_id):
    for png in rendered[spec_id]:
        image = open_png(png)
        assert image.format == "PNG"
        assert image.size == SIZE_PX == (800, 560)


@pytest.mark.parametrize("spec_id", SPEC_IDS)
def test_the_manipulated_version_differs_from_the_honest_one(rendered, spec_id):
    honest, manipulated = rendered[spec_id]
    assert honest != manipulated
    assert open_png(honest).tobytes() != open_png(manipulated).tobytes()


@pytest.mark.parametrize("spec_id", SPEC_IDS)
def test_rendering_twice_gives_identical_bytes(specs, rendered, spec_id):
    assert render_pair(specs[spec_id]) == rendered[spec_id]


def test_a_fresh_process_with_another_hash_seed_renders_the_same_bytes(rendered):
    chosen = ["G9_Q1", "G14_Q1", "G15_Q1"]
    script = (
        "import hashlib, sys\n"
        "from studies.chartgen import load_specs, render_pair\n"
        f"specs = {{s.id: s for s in load_specs({str(SPEC_FILE)!r})}}\n"
        f"for spec_id in {chosen!r}:\n"
        "    for png in render_pair(specs[spec_id]):\n"
        "        print(hashlib.sha256(png).hexdigest())\n"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    expected = [hashlib.sha256(png).hexdigest() for i in chosen for png in rendered[i]]
    assert out == expected


def test_specs_survive_a_round_trip_through_dicts(specs):
    for spec in specs.values():
        assert spec_from_dict(json.loads(json.dumps(spec.to_dict()))) == spec


def test_chart_ids_follow_the_chartom_suffixes(specs):
    spec = specs["G7_Q1"]
    assert (spec.chart_id(manipulated=False), spec.chart_id(manipulated=True)) == (
        "G7_Q1_1",
        "G7_Q1_2",
    )


# Each manipulation does what it says -------------------------------------------------------


@pytest.mark.parametrize(
    ("manipulation", "chart_type"),
    [(slug, chart) for slug, m in MANIPULATIONS.items() for chart in m.chart_types],
)
def test_every_supported_combination_renders_a_distinct_pair(manipulation, chart_type):
    params = {"front": "C"} if manipulation.startswith("pie_3d") else {}
    spec = spec_from_dict(make(chart_type, manipulation, params=params))
    honest, manipulated = render_pair(spec)
    assert open_png(honest).size == open_png(manipulated).size == SIZE_PX
    assert honest != manipulated


def test_truncated_axis_starts_above_zero_but_below_the_data(specs):
    spec = specs["G1_Q1"]
    honest = chart_figure(spec, manipulated=False).axes[0].get_ylim()
    low, high = chart_figure(spec, manipulated=True).axes[0].get_ylim()
    assert honest[0] == 0
    assert 0 < low < min(spec.data.y_values()) and high >= max(spec.data.y_values())
    assert chart_figure(specs["G7_Q1"], manipulated=True).axes[0].get_ylim()[0] == 240


def test_compressed_axis_leaves_most_of_the_range_empty(specs):
    spec = specs["G8_Q1"]
    low, high = chart_figure(spec, manipulated=True).axes[0].get_ylim()
    assert low == 0 and high >= 4 * max(spec.data.y_values())


def test_inverted_and_log_axes(specs):
    assert chart_figure(specs["G3_Q1"], manipulated=True).axes[0].yaxis_inverted()
    assert not chart_figure(specs["G3_Q1"], manipulated=False).axes[0].yaxis_inverted()
    assert chart_figure(specs["G6_Q1"], manipulated=True).axes[0].xaxis_inverted()
    assert chart_figure(specs["G5_Q1"], manipulated=True).axes[0].get_yscale() == "log"
    assert chart_figure(specs["G5_Q1"], manipulated=False).axes[0].get_yscale() == "linear"


def test_inconsistent_x_axis_draws_uneven_years_at_equal_distances(specs):
    spec = specs["G4_Q1"]
    honest = chart_figure(spec, manipulated=False).axes[0].lines[0].get_xdata()
    manipulated = chart_figure(spec, manipulated=True).axes[0].lines[0].get_xdata()
    assert list(honest) == [float(c) for c in spec.data.categories]
    assert list(manipulated) == [float(i) for i in range(len(spec.data.categories))]
    labels = [t.get_text() for t in chart_figure(spec, manipulated=True).axes[0].get_xticklabels()]
    assert labels == list(spec.data.category_labels)


def test_dual_axes_make_the_smaller_series_look_higher_at_the_end(specs):
    spec = specs["G9_Q1"]
    first, second = spec.data.series
    assert first.values[-1] > second.values[-1]
    fig = chart_figure(spec, manipulated=True)
    assert len(fig.axes) == 2
    heights = []
    for ax, value in zip(fig.axes, (first.values[-1], second.values[-1]), strict=True):
        low, high = ax.get_ylim()
        heights.append((value - low) / (high - low))
    assert heights[1] > heights[0]
    assert len(chart_figure(spec, manipulated=False).axes) == 1


def test_pictorial_icons_grow_in_width_and_height_with_the_value(specs):
    spec = specs["G10_Q1"]
    ax = chart_figure(spec, manipulated=True).axes[0]
    bodies = [p for p in ax.patches if isinstance(p, Ellipse) and p.get_facecolor()[0] > 0.7]
    values = spec.data.series[0].values
    assert len(bodies) == len(values)
    for body, value in zip(bodies, values, strict=True):
        assert body.width / bodies[0].width == pytest.approx(value / values[0])
        assert body.height / bodies[0].height == pytest.approx(value / values[0])


def test_3d_bars_have_a_front_top_and_side_face(specs):
    spec = specs["G12_Q1"]
    ax = chart_figure(spec, manipulated=True).axes[0]
    faces = [p for p in ax.patches if isinstance(p, Polygon)]
    assert len(faces) == 3 * len(spec.data.categories) + 1  # and the floor


def _top_faces(spec, manipulated: bool) -> dict[int, list[tuple[float, float]]]:
    """Slice index -> outline of its top face: the only polygons in the plain palette colors
    (walls and cut faces are drawn in darker shades)."""
    ax = chart_figure(spec, manipulated=manipulated).axes[0]
    faces = {}
    for patch in ax.patches:
        rgb = tuple(round(c * 255) for c in patch.get_facecolor()[:3])
        hexcolor = "#{:02x}{:02x}{:02x}".format(*rgb)
        if hexcolor in PALETTE:
            faces[PALETTE.index(hexcolor)] = [tuple(p) for p in patch.get_xy()]
    return faces


def _area_shares(faces: dict[int, list[tuple[float, float]]]) -> list[float]:
    areas = [
        0.5
        * abs(
            sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(xy, xy[1:] + xy[:1], strict=True))
        )
        for _, xy in sorted(faces.items())
    ]
    return [a / sum(areas) for a in areas]


def test_3d_pie_perspective_enlarges_the_front_slice(specs):
    spec = specs["G13_Q1"]
    front = spec.data.category_labels.index(spec.params["front"])
    flat = _area_shares(_top_faces(spec, False))
    tilted = _area_shares(_top_faces(spec, True))
    assert flat[front] == pytest.approx(spec.data.series[0].values[front] / 100, abs=0.005)
    assert tilted[front] > flat[front] + 0.05


def test_popped_out_slice_is_moved_off_the_centre(specs):
    spec = specs["G14_Q1"]
    popped = spec.data.category_labels.index(spec.params["pop_out"])
    faces = _top_faces(spec, manipulated=True)
    centre_of = {i: xy[0] for i, xy in faces.items()}
    body_centres = {centre_of[i] for i in faces if i != popped}
    assert len(body_centres) == 1
    assert centre_of[popped] not in body_centres


def test_inverted_color_scale_darkens_low_values_and_flips_the_legend(specs):
    spec = specs["G15_Q1"]
    for manipulated in (False, True):
        fig = chart_figure(spec, manipulated=manipulated)
        ax, legend = fig.axes
        colors = {t.get_text(): t.get_color() for t in ax.texts}
        # White text marks a dark tile: Florida (high) is dark only on the honest map.
        assert (colors["FL"] == "white") is (not manipulated)
        assert (colors["WV"] == "white") is manipulated
        assert bool(legend.yaxis_inverted()) is manipulated


# Plain charts for captions ------------------------------------------------------------------


def test_caption_charts_load_render_and_carry_chocolate_labels():
    items = json.loads(CAPTION_FILE.read_text(encoding="utf-8"))
    assert len(items) >= 10
    specs = load_specs([item["chart"] for item in items])
    seen_labels = set()
    for item, spec in zip(items, specs, strict=True):
        assert spec.manipulation == "none" and not spec.has_pair
        assert spec.chart_type in {"bar", "line", "pie"}
        assert open_png(render_chart(spec, manipulated=False)).size == SIZE_PX
        assert len(item["captions"]) == 2
        for caption in item["captions"]:
            assert caption["model"] in CAPTION_MODELS
            assert 2 <= len(caption["sentences"]) <= 4
            assert len(caption["labels"]) == len(caption["sentences"])
            for labels in caption["labels"]:
                assert set(labels) <= ERROR_LABELS
                seen_labels |= set(labels)
    assert seen_labels == ERROR_LABELS
    assert len({item["id"] for item in items}) == len(items)


def test_a_chart_without_manipulation_has_no_manipulated_version():
    spec = spec_from_dict(
        {
            k: v
            for k, v in make("bar", "none").items()
            if k not in ("question", "answer_type", "answer")
        }
    )
    assert spec.question == "" and spec.answer_type == ""
    with pytest.raises(ValueError, match="no manipulated version"):
        render_chart(spec, manipulated=True)
    with pytest.raises(ValueError):
        render_pair(spec)


# Validation ---------------------------------------------------------------------------------


def test_a_valid_spec_parses():
    spec = spec_from_dict(make())
    assert spec.options == ("A", "B") and spec.answer == "2"
    assert spec.manipulation_label == "Truncated y-axis"


def test_it_rejects_an_unknown_chart_type():
    assert problems_of(make(chart_type="donut")) == ["chart_type"]


def test_it_rejects_an_unknown_manipulation():
    assert problems_of(make(manipulation="rainbow_colors")) == ["manipulation"]


def test_it_rejects_a_manipulation_the_chart_type_does_not_support():
    with pytest.raises(SpecError, match="not supported on pie"):
        spec_from_dict(make("pie", "truncated_y_axis"))


def test_it_rejects_missing_data():
    raw = make()
    del raw["data"]
    assert problems_of(raw) == ["data"]
    assert problems_of(make(data={})) == ["data"]


def test_it_rejects_an_unknown_answer_type():
    assert problems_of(make(answer_type="essay")) == ["answer_type"]


def test_it_rejects_series_whose_length_differs_from_the_categories():
    bad = copy.deepcopy(TWO_SERIES)
    bad["series"][1]["values"].append(70)
    assert problems_of(make("line", "dual_axes", data=bad)) == ["data.series[1].values"]
    assert problems_of(make(data={"categories": ["A", "B"], "values": [1, 2, 3]})) == [
        "data.values"
    ]


def test_it_rejects_a_manipulation_the_data_cannot_carry():
    even = {"categories": [2000, 2001, 2002], "values": [1, 2, 3]}
    assert problems_of(make("line", "inconsistent_x_axis", data=even)) == ["data.categories"]
    assert problems_of(make("line", "dual_axes", data=DATA["line"])) == ["data.series"]
    assert problems_of(make("line", "log_y_axis", data={**DATA["line"], "values": [0, 1, 2, 3]}))
    assert problems_of(make(params={"y_start": 260})) == ["params.y_start"]
    assert problems_of(make("line", "dual_axes", params={"y2_range": [30, 50]})) == [
        "params.y2_range"
    ]
    assert problems_of(make("pie", "pie_3d", params={"front": "Z"})) == ["params.front"]
    assert problems_of(make(params={"icon": "apple"})) == ["params.icon"]


def test_multiple_choice_needs_options_and_an_answer_among_them():
    assert problems_of(make(answer=3)) == ["answer"]
    assert problems_of(make(question="Which is larger?")) == ["question"]
    spec = spec_from_dict(make(question="Which is larger?", options=["A", "B", "C"], answer=3))
    assert spec.options == ("A", "B", "C")
    assert problems_of(make(options=["A", "C"])) == ["options"]


def test_options_are_read_from_the_question_text_as_participants_see_them():
    question = (
        "In 2014 sales were 1.2 million. What happened by 2018? "
        "1. It increased. 2. It decreased. 3. It stayed about the same."
    )
    spec = spec_from_dict(make(question=question, answer=2))
    assert spec.options == ("It increased.", "It decreased.", "It stayed about the same.")
    text, stem, options, key, index = get_type("multiple_choice").spec_question_parts(spec)
    assert stem == "In 2014 sales were 1.2 million. What happened by 2018?"
    assert (text, options, key, index) == (question, list(spec.options), "2. It decreased.", 1)


def test_free_text_keys_are_numbers():
    spec = spec_from_dict(make(answer_type="free_text", answer=1.2, question="How many?"))
    assert spec.answer == "1.2" and spec.answer_number == 1.2
    assert problems_of(make(answer_type="free_text", answer="a lot")) == ["answer"]


def test_ranking_keys_must_follow_the_data():
    pie = make("pie", "pie_3d", answer_type="ranking", question="Sort them.")
    assert spec_from_dict({**pie, "answer": "A > B > C > D"}).ranking == ("A", "B", "C", "D")
    assert spec_from_dict({**pie, "answer": ["D", "C", "B", "A"]}).answer == "D > C > B > A"
    assert problems_of({**pie, "answer": "B > A > C > D"}) == ["answer"]
    assert problems_of({**pie, "answer": "A > X"}) == ["answer"]
    assert problems_of({**pie, "answer": "A"}) == ["answer"]


def test_it_rejects_unknown_fields_and_ids_outside_their_group():
    assert problems_of(make(titel="typo")) == ["titel"]
    assert problems_of(make(id="G2_Q1")) == ["id"]


def test_a_pair_needs_its_question():
    raw = make()
    del raw["question"], raw["answer_type"], raw["answer"]
    assert set(problems_of(raw)) == {"question", "answer_type", "answer"}


def test_load_specs_collects_every_problem_with_its_index_and_field():
    good = make()
    bad_type = make(id="G1_Q2", chart_type="donut")
    bad_answer = make(id="G1_Q3", answer=9)
    duplicate = make()
    with pytest.raises(SpecError) as excinfo:
        load_specs([good, bad_type, bad_answer, duplicate])
    found = [(p.index, p.field) for p in excinfo.value.problems]
    assert found == [(1, "chart_type"), (2, "answer"), (3, "id")]
    assert "Spec 2 (G1_Q2): chart_type" in str(excinfo.value)


def test_spec_problems_name_each_spec_once_counting_from_one():
    two_wrong = make(id="G1_Q2", chart_type="donut", titel="typo")
    with pytest.raises(SpecError) as excinfo:
        load_specs([make(), two_wrong, make()])
    messages = excinfo.value.messages
    assert len(messages) == 2
    assert messages[0].startswith("Spec 2 (G1_Q2): ") and messages[0].count("Spec") == 1
    assert "titel: unknown field" in messages[0] and "chart_type: unknown chart type" in messages[0]
    assert messages[1] == "Spec 3 (G1_Q1): id: duplicate of spec 1"
    text = str(excinfo.value)
    assert text.count("Spec 2") == 1 and "spec 0" not in text.lower()


def test_load_specs_reports_a_file_that_is_not_a_list(tmp_path):
    path = tmp_path / "specs.json"
    path.write_text('{"id": "G1_Q1"}', encoding="utf-8")
    with pytest.raises(SpecError, match="list"):
        load_specs(path)
    path.write_text("[{", encoding="utf-8")
    with pytest.raises(SpecError, match="invalid JSON"):
        load_specs(str(path))
