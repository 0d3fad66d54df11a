"""Chart specs a renderer cannot draw are refused with the field and the limit, not a crash."""

from __future__ import annotations

import pytest

from studies.chartgen import render_pair
from studies.chartgen.spec import SpecError
from studies.chartgen.validate import MAX_CATEGORIES, MAX_POINTS, spec_from_dict
from studies.tests.test_chartgen import make, problems_of


def messages_of(raw) -> list[str]:
    with pytest.raises(SpecError) as excinfo:
        spec_from_dict(raw)
    return [problem.message for problem in excinfo.value.problems]


def test_values_near_the_float_limit_are_refused_with_the_bound():
    raw = make(data={"categories": ["a", "b"], "values": [1e308, 1.7e308]})
    assert problems_of(raw) == ["data.values"]
    assert "±1e15" in messages_of(raw)[0]
    second = make(data={"categories": ["a", "b", "c"], "values": [1, 1e308, "x"]})
    assert messages_of(second)[0].startswith("item 3 of 3 is not a finite number")
    second = make(data={"categories": ["a", "b", "c"], "values": [1, 1e308, 2]})
    assert messages_of(second)[0].startswith("item 2 of 3 is too large to draw")
    assert problems_of(make("scatter", "inverted_y_axis", data={"points": [[1, 2], [3, -1e16]]}))
    assert problems_of(make("line", "truncated_y_axis", data={"categories": [1, 1e300],
                                                               "values": [1, 2]}))  # fmt: skip


def test_the_largest_drawable_values_still_render():
    spec = spec_from_dict(make(data={"categories": ["a", "b"], "values": [9e14, 1e15]}))
    honest, manipulated = render_pair(spec)
    assert honest[:4] == b"\x89PNG" and manipulated[:4] == b"\x89PNG"


def test_too_many_marks_are_refused_before_anything_is_drawn():
    many = [f"c{i}" for i in range(MAX_CATEGORIES + 1)]
    raw = make(data={"categories": many, "values": list(range(1, len(many) + 1))})
    assert problems_of(raw) == ["data.categories"]
    assert f"at most {MAX_CATEGORIES} categories" in messages_of(raw)[0]
    points = [[i, i + 1] for i in range(MAX_POINTS + 1)]
    assert problems_of(make("scatter", "inverted_y_axis", data={"points": points})) == [
        "data.points"
    ]


def test_a_tile_far_off_the_grid_is_refused():
    tiles = [
        {"region": "A", "row": 0, "col": 0, "value": 1},
        {"region": "B", "row": 10**9, "col": 0, "value": 2},
    ]
    assert problems_of(make("map", "inverted_color_scale", data={"tiles": tiles})) == [
        "data.tiles[1]"
    ]
