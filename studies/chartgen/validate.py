"""Validation of raw spec dicts into ``ChartSpec`` objects, collecting every problem found."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

from core import json_input
from studies.answer_types import get_type
from studies.answers.quantities import is_number

from .spec import (
    ANSWER_TYPES,
    CHART_PARAMS,
    CHART_TYPES,
    ICONS,
    MANIPULATIONS,
    NO_MANIPULATION,
    ChartData,
    ChartSpec,
    Series,
    SpecError,
    SpecProblem,
    Tile,
)

_ID_RE = re.compile(r"^[A-Za-z0-9]+(?:_[A-Za-z0-9]+)*$")
_GROUP_RE = re.compile(r"^[A-Za-z0-9]+$")
_FIELDS = tuple(f.name for f in fields(ChartSpec))

# What a chart can draw. Beyond ±1e15 sums and axis ticks overflow or lose their digits
# (values near the float limit crashed the renderer); more marks than these make a chart
# nobody can read and a render that holds a request for minutes.
MAX_MAGNITUDE = 1e15
MAX_CATEGORIES = 100
MAX_POINTS = 2000
MAX_TILES = 200
MAX_GRID_INDEX = 49  # a tile map's last row and column
TOO_LARGE = "is too large to draw: keep numbers within ±1e15 (rescale, e.g. to millions)"


def _drawable(value: Any) -> bool:
    return is_number(value) and abs(value) <= MAX_MAGNITUDE


class _Collector:
    def __init__(self, problems: list[SpecProblem]):
        self.problems = problems

    def add(self, field_name: str, message: str) -> None:
        self.problems.append(SpecProblem(field_name, message))

    def text(self, raw: Mapping[str, Any], key: str, *, required: bool) -> str:
        value = raw.get(key)
        if value is None or value == "":
            if required:
                self.add(key, "required")
            return ""
        if not isinstance(value, str):
            self.add(key, "expected a string")
            return ""
        return value.strip()

    def numbers(self, value: Any, field_name: str) -> tuple[float, ...] | None:
        if not isinstance(value, list) or not value:
            self.add(field_name, "expected a non-empty list of numbers")
            return None
        # Counted from 1, as the specs are ("Spec 1"), and out of how many: "item 1" of a
        # list counted from 0 was the second.
        bad = [n for n, v in enumerate(value, start=1) if not is_number(v)]
        if bad:
            self.add(field_name, f"item {bad[0]} of {len(value)} is not a finite number")
            return None
        huge = [n for n, v in enumerate(value, start=1) if not _drawable(v)]
        if huge:
            self.add(field_name, f"item {huge[0]} of {len(value)} {TOO_LARGE}")
            return None
        return tuple(value)


def parse_spec(raw: Any, problems: list[SpecProblem]) -> ChartSpec | None:
    c = _Collector(problems)
    if not isinstance(raw, Mapping):
        c.add("spec", "expected an object")
        return None
    for key in raw:
        if key not in _FIELDS:
            c.add(key, "unknown field")

    spec_id = c.text(raw, "id", required=True)
    group = c.text(raw, "group", required=True)
    if spec_id and not _ID_RE.match(spec_id):
        c.add("id", "use letters, digits and single underscores, like G1_Q1")
    if group and not _GROUP_RE.match(group):
        c.add("group", "use letters and digits only, like G1")
    if spec_id and group and not spec_id.startswith(group + "_"):
        c.add("id", f"must start with its group, like {group}_Q1")

    chart_type = c.text(raw, "chart_type", required=True)
    if chart_type and chart_type not in CHART_TYPES:
        c.add("chart_type", f"unknown chart type {chart_type!r}; expected one of {CHART_TYPES}")
        chart_type = ""

    manipulation = c.text(raw, "manipulation", required=True)
    if manipulation and manipulation != NO_MANIPULATION:
        m = MANIPULATIONS.get(manipulation)
        if m is None:
            c.add(
                "manipulation",
                f"unknown manipulation {manipulation!r}; expected 'none' or one of "
                f"{tuple(MANIPULATIONS)}",
            )
            manipulation = ""
        elif chart_type and chart_type not in m.chart_types:
            c.add(
                "manipulation",
                f"{manipulation} is not supported on {chart_type} charts "
                f"(supported: {', '.join(m.chart_types)})",
            )
            manipulation = ""

    title = c.text(raw, "title", required=True)
    x_label = c.text(raw, "x_label", required=False)
    y_label = c.text(raw, "y_label", required=False)
    unit = c.text(raw, "unit", required=False)

    data = _parse_data(raw.get("data"), chart_type, y_label, c) if chart_type else None
    params = _parse_params(raw.get("params"), chart_type, manipulation, c)
    if data is not None and manipulation:
        _check_manipulation_fits(data, manipulation, params, c)

    question, answer_type, answer, options = _parse_question(raw, manipulation, data, c)

    if problems or data is None:
        return None
    return ChartSpec(
        id=spec_id,
        group=group,
        chart_type=chart_type,
        manipulation=manipulation,
        title=title,
        data=data,
        x_label=x_label,
        y_label=y_label,
        question=question,
        answer_type=answer_type,
        answer=answer,
        options=options,
        unit=unit,
        params=params,
    )


def _parse_data(raw: Any, chart_type: str, y_label: str, c: _Collector) -> ChartData | None:
    if raw is None or raw == {}:
        c.add("data", "required")
        return None
    if not isinstance(raw, Mapping):
        c.add("data", "expected an object")
        return None
    if chart_type == "scatter":
        return _parse_points(raw, c)
    if chart_type == "map":
        return _parse_tiles(raw, c)
    return _parse_categorical(raw, chart_type, y_label, c)


def _parse_categorical(
    raw: Mapping[str, Any], chart_type: str, y_label: str, c: _Collector
) -> ChartData | None:
    for key in raw:
        if key not in ("categories", "series", "values"):
            c.add(f"data.{key}", f"unknown field for a {chart_type} chart")
    categories = raw.get("categories")
    ok = True
    if not isinstance(categories, list) or len(categories) < 2:
        c.add("data.categories", "expected a list of at least two categories")
        ok = False
    elif len(categories) > MAX_CATEGORIES:
        c.add("data.categories", f"at most {MAX_CATEGORIES} categories, not {len(categories)}")
        ok = False
    elif not all(isinstance(x, str) and x.strip() or is_number(x) for x in categories):
        c.add("data.categories", "each category must be a non-empty string or a number")
        ok = False
    elif not all(isinstance(x, str) or _drawable(x) for x in categories):
        c.add("data.categories", f"a numeric category {TOO_LARGE}")
        ok = False
    else:
        labels = ChartData(categories=tuple(categories)).category_labels
        if len(set(labels)) != len(labels):
            c.add("data.categories", "categories must be unique")
            ok = False

    if "values" in raw and "series" in raw:
        c.add("data", "give either values (one series) or series, not both")
        return None
    if "values" in raw:
        raw_series: Any = [{"name": y_label, "values": raw["values"]}]
        prefix = "data.values"
    else:
        raw_series = raw.get("series")
        prefix = None
    max_series = 1 if chart_type == "pie" else 2
    if not isinstance(raw_series, list) or not 1 <= len(raw_series) <= max_series:
        c.add("data.series", f"expected a list of 1 to {max_series} series (or data.values)")
        return None

    series = []
    for i, item in enumerate(raw_series):
        where = prefix or f"data.series[{i}]"
        if not isinstance(item, Mapping):
            c.add(where, "expected an object with name and values")
            ok = False
            continue
        name = item.get("name", "")
        if not isinstance(name, str) or (not name and len(raw_series) > 1):
            c.add(f"{where}.name", "each of two series needs a name")
            ok = False
        values_field = where if prefix else f"{where}.values"
        values = c.numbers(item.get("values"), values_field)
        if values is None:
            ok = False
            continue
        if isinstance(categories, list) and len(values) != len(categories):
            c.add(
                values_field,
                f"has {len(values)} values for {len(categories)} categories",
            )
            ok = False
        if chart_type == "pie" and any(v <= 0 for v in values):
            c.add(values_field, "pie values must be positive")
            ok = False
        series.append(Series(name if isinstance(name, str) else "", values))
    if not ok:
        return None
    return ChartData(categories=tuple(categories), series=tuple(series))


def _parse_points(raw: Mapping[str, Any], c: _Collector) -> ChartData | None:
    for key in raw:
        if key != "points":
            c.add(f"data.{key}", "unknown field for a scatter chart")
    points = raw.get("points")
    if not isinstance(points, list) or len(points) < 2:
        c.add("data.points", "expected a list of at least two [x, y] points")
        return None
    if len(points) > MAX_POINTS:
        c.add("data.points", f"at most {MAX_POINTS} points, not {len(points)}")
        return None
    parsed = []
    for i, p in enumerate(points):
        if not (isinstance(p, list) and len(p) == 2 and all(is_number(v) for v in p)):
            c.add(f"data.points[{i}]", "expected [x, y] with two finite numbers")
            return None
        if not all(_drawable(v) for v in p):
            c.add(f"data.points[{i}]", TOO_LARGE)
            return None
        parsed.append((p[0], p[1]))
    return ChartData(points=tuple(parsed))


def _parse_tiles(raw: Mapping[str, Any], c: _Collector) -> ChartData | None:
    for key in raw:
        if key != "tiles":
            c.add(f"data.{key}", "unknown field for a map chart")
    tiles = raw.get("tiles")
    if not isinstance(tiles, list) or len(tiles) < 2:
        c.add("data.tiles", "expected a list of at least two tiles")
        return None
    if len(tiles) > MAX_TILES:
        c.add("data.tiles", f"at most {MAX_TILES} tiles, not {len(tiles)}")
        return None
    parsed: list[Tile] = []
    regions: set[str] = set()
    cells: set[tuple[int, int]] = set()
    for i, t in enumerate(tiles):
        where = f"data.tiles[{i}]"
        if not isinstance(t, Mapping):
            c.add(where, "expected an object with region, row, col, value")
            return None
        region, row, col, value = (t.get(k) for k in ("region", "row", "col", "value"))
        name = t.get("name", "")
        if not isinstance(region, str) or not region.strip():
            c.add(f"{where}.region", "required")
            return None
        if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in (row, col)):
            c.add(where, "row and col must be non-negative integers")
            return None
        if max(row, col) > MAX_GRID_INDEX:
            c.add(where, f"row and col go up to {MAX_GRID_INDEX}")
            return None
        if not is_number(value):
            c.add(f"{where}.value", "expected a finite number")
            return None
        if not _drawable(value):
            c.add(f"{where}.value", TOO_LARGE)
            return None
        if region in regions:
            c.add(f"{where}.region", f"duplicate region {region!r}")
        if (row, col) in cells:
            c.add(where, f"two tiles share row {row}, col {col}")
        regions.add(region)
        cells.add((row, col))
        parsed.append(Tile(region, row, col, value, name if isinstance(name, str) else ""))
    if len({t.value for t in parsed}) < 2:
        c.add("data.tiles", "a color scale needs at least two distinct values")
    return ChartData(tiles=tuple(parsed))


def _parse_params(raw: Any, chart_type: str, manipulation: str, c: _Collector) -> dict[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        c.add("params", "expected an object")
        return {}
    allowed = set(CHART_PARAMS.get(chart_type, ()))
    if manipulation in MANIPULATIONS:
        allowed |= set(MANIPULATIONS[manipulation].params)
    for key in raw:
        if key not in allowed:
            c.add(f"params.{key}", f"not a parameter of {chart_type} / {manipulation}")
    if "value_labels" in raw and not isinstance(raw["value_labels"], bool):
        c.add("params.value_labels", "expected true or false")
    return {k: v for k, v in raw.items() if k in allowed}


def _check_manipulation_fits(
    data: ChartData, manipulation: str, params: Mapping[str, Any], c: _Collector
) -> None:
    """Reject data on which the manipulation would be impossible, or would hide the data."""
    ys = data.y_values()
    if manipulation in ("pictorial_bars", "bar_3d"):
        if len(data.series) != 1:
            c.add("data.series", f"{manipulation} draws exactly one series")
        if any(v < 0 for v in ys):
            c.add("data.series", f"{manipulation} needs non-negative values")
        icon = params.get("icon", ICONS[0])
        if icon not in ICONS:
            c.add("params.icon", f"expected one of {ICONS}")
    elif manipulation == "dual_axes":
        if len(data.series) != 2:
            c.add("data.series", "dual_axes needs exactly two series")
        elif "y2_range" in params:
            rng = params["y2_range"]
            second = data.series[1].values
            if not (isinstance(rng, list) and len(rng) == 2 and all(is_number(v) for v in rng)):
                c.add("params.y2_range", "expected [low, high]")
            elif not rng[0] <= min(second) or not max(second) <= rng[1] or rng[0] >= rng[1]:
                c.add("params.y2_range", "must contain every value of the second series")
    elif manipulation == "truncated_y_axis":
        if min(ys) <= 0:
            c.add("data", "truncated_y_axis needs positive values (the axis starts above 0)")
        elif "y_start" in params:
            start = params["y_start"]
            if not is_number(start) or not 0 < start < min(ys):
                c.add("params.y_start", f"must be above 0 and below the smallest value {min(ys):g}")
    elif manipulation == "compressed_y_axis":
        if "y_max" in params:
            top = params["y_max"]
            if not is_number(top) or top <= max(ys):
                c.add("params.y_max", f"must be above the largest value {max(ys):g}")
    elif manipulation == "log_y_axis":
        if min(ys) <= 0:
            c.add("data", "log_y_axis needs positive y values")
    elif manipulation == "inconsistent_x_axis":
        xs = data.categories
        if not data.numeric_categories or any(b <= a for a, b in zip(xs, xs[1:], strict=False)):
            c.add("data.categories", "inconsistent_x_axis needs increasing numeric x values")
        elif len({b - a for a, b in zip(xs, xs[1:], strict=False)}) < 2:
            c.add(
                "data.categories",
                "inconsistent_x_axis needs uneven x intervals, else both versions look alike",
            )
    elif manipulation in ("pie_3d", "pie_3d_popout"):
        labels = data.category_labels
        for key in ("front", "pop_out"):
            if key in params and params[key] not in labels:
                c.add(f"params.{key}", f"{params[key]!r} is not a category")


def _parse_question(
    raw: Mapping[str, Any], manipulation: str, data: ChartData | None, c: _Collector
) -> tuple[str, str, str, tuple[str, ...]]:
    # A plain chart (manipulation "none") may come without a question; a pair never does.
    optional = manipulation == NO_MANIPULATION and not any(
        raw.get(k) not in (None, "") for k in ("question", "answer_type", "answer")
    )
    question = c.text(raw, "question", required=not optional)
    answer_type = c.text(raw, "answer_type", required=not optional)
    if optional:
        return "", "", "", ()
    if answer_type and answer_type not in ANSWER_TYPES:
        c.add("answer_type", f"unknown answer type {answer_type!r}; expected one of {ANSWER_TYPES}")
        return question, "", "", ()
    answer_raw = raw.get("answer")
    if answer_raw is None or answer_raw == "":
        c.add("answer", "required")
        return question, answer_type, "", ()

    key, options = get_type(answer_type).spec_answer(raw, question, data, c)
    return question, answer_type, key, options


def spec_from_dict(raw: Any) -> ChartSpec:
    """One spec from its raw dict; raises ``SpecError`` listing every problem found."""
    problems: list[SpecProblem] = []
    spec = parse_spec(raw, problems)
    if problems or spec is None:
        raise SpecError.of(problems)
    return spec


def load_specs(source: str | Path | Sequence[Mapping[str, Any]]) -> list[ChartSpec]:
    """Parse a JSON file (a list of spec objects) or an already-parsed list.

    Raises ``SpecError`` listing every problem of every spec, each with its index and field.
    """
    if isinstance(source, str | Path):
        try:
            raw = json_input.loads(Path(source).read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise SpecError.of([SpecProblem("file", f"invalid JSON: {exc}")]) from exc
    else:
        raw = source
    if not isinstance(raw, list):
        raise SpecError.of([SpecProblem("file", "expected a list of chart specs")])

    specs: list[ChartSpec] = []
    problems: list[SpecProblem] = []
    seen: dict[str, int] = {}
    for index, item in enumerate(raw):
        own: list[SpecProblem] = []
        spec = parse_spec(item, own)
        spec_id = item.get("id", "") if isinstance(item, Mapping) else ""
        spec_id = spec_id if isinstance(spec_id, str) else ""
        problems.extend(SpecProblem(p.field, p.message, index, spec_id) for p in own)
        if spec_id and spec_id in seen:
            problems.append(
                SpecProblem("id", f"duplicate of spec {seen[spec_id] + 1}", index, spec_id)
            )
        elif spec_id:
            seen[spec_id] = index
        if spec is not None and not own:
            specs.append(spec)
    if problems:
        raise SpecError.of(problems)
    return specs
