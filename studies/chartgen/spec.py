"""Chart specifications: the data, question and planted manipulation of one chart pair.

A spec describes one CHARTOM question: a non-manipulated chart (`<id>_1`) and a manipulated chart
(`<id>_2`) drawn from the same data, plus the FACT question both share. The data must stay
recoverable from both versions, so the FACT answer key is the same for both.

A spec whose manipulation is ``"none"`` describes a single plain chart (used for caption
annotation); it has no manipulated version and its question fields are optional.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from studies.answer_types import KEYS
from studies.answers.quantities import format_number, is_number

CHART_TYPES = ("line", "bar", "scatter", "pie", "map")
ANSWER_TYPES = KEYS  # the registered answer types (studies.answer_types)
NO_MANIPULATION = "none"
ICONS = ("apple", "person", "barrel")


@dataclass(frozen=True)
class Manipulation:
    """A planted manipulation: its human label and the chart types it is drawn on."""

    label: str
    chart_types: tuple[str, ...]
    # Optional render parameters an author may set in the spec's ``params``.
    params: tuple[str, ...] = ()


MANIPULATIONS: dict[str, Manipulation] = {
    "truncated_y_axis": Manipulation("Truncated y-axis", ("line", "bar"), ("y_start",)),
    "compressed_y_axis": Manipulation(
        "Compressed (wide-range) y-axis", ("line", "bar"), ("y_max",)
    ),
    "inverted_y_axis": Manipulation("Inverted y-axis", ("line", "bar", "scatter")),
    "inconsistent_x_axis": Manipulation("Inconsistent x-axis", ("line",)),
    "dual_axes": Manipulation("Dual axes", ("line",), ("y2_range",)),
    "pictorial_bars": Manipulation("Pictorial bars", ("bar",), ("icon",)),
    "bar_3d": Manipulation("3D effect (bar)", ("bar",)),
    "log_y_axis": Manipulation("Logarithmic y-axis", ("line", "scatter")),
    "inverted_x_axis": Manipulation("Inverted x-axis", ("line", "scatter")),
    "inverted_color_scale": Manipulation("Inverted color scale", ("map",)),
    "pie_3d": Manipulation("3D effect (pie)", ("pie",), ("front",)),
    "pie_3d_popout": Manipulation("3D effect + pop-out (pie)", ("pie",), ("front", "pop_out")),
}

# Parameters that belong to a chart type whatever its manipulation.
CHART_PARAMS: dict[str, tuple[str, ...]] = {"pie": ("value_labels",)}


@dataclass(frozen=True)
class SpecProblem:
    field: str
    message: str
    # 0-based place of the spec in its list (None for a lone spec); people read it 1-based.
    index: int | None = None
    spec_id: str = ""

    @property
    def where(self) -> str:
        """ "Spec 2 (G1_Q2)": the spec as a person counts it, or "" for a lone spec."""
        if self.index is None:
            return ""
        return f"Spec {self.index + 1}" + (f" ({self.spec_id})" if self.spec_id else "")

    @property
    def detail(self) -> str:
        return f"{self.field}: {self.message}"

    def __str__(self) -> str:
        return f"{self.where}: {self.detail}" if self.where else self.detail


def problem_messages(problems: Sequence[SpecProblem]) -> list[str]:
    """One message per spec, naming it once: "Spec 2 (G1_Q2): chart_type: ...; title: required".

    A list of twenty specs with three problems each reads as twenty lines, not sixty
    lines that each repeat which spec they are about."""
    grouped: dict[str, list[str]] = {}
    for problem in problems:
        grouped.setdefault(problem.where, []).append(problem.detail)
    return [
        f"{where}: {'; '.join(details)}" if where else "; ".join(details)
        for where, details in grouped.items()
    ]


class SpecError(ValueError):
    """Invalid spec(s). ``problems`` lists every problem found, so a file is fixed in one pass."""

    def __init__(self, message: str, problems: Sequence[SpecProblem] = ()):
        super().__init__(message)
        self.problems = list(problems)

    @classmethod
    def of(cls, problems: Sequence[SpecProblem]) -> SpecError:
        """The error for these problems, its message one sentence per spec."""
        return cls(" ".join(_sentence(m) for m in problem_messages(problems)), problems)

    @property
    def fields(self) -> list[str]:
        return [p.field for p in self.problems]

    @property
    def messages(self) -> list[str]:
        return problem_messages(self.problems) or [str(self)]


def _sentence(text: str) -> str:
    return text if text.endswith((".", "!", "?")) else text + "."


@dataclass(frozen=True)
class Series:
    name: str
    values: tuple[float, ...]


@dataclass(frozen=True)
class Tile:
    region: str
    row: int
    col: int
    value: float
    name: str = ""


@dataclass(frozen=True)
class ChartData:
    """Line, bar and pie use categories + series; scatter uses points; map uses tiles."""

    categories: tuple[str | float, ...] = ()
    series: tuple[Series, ...] = ()
    points: tuple[tuple[float, float], ...] = ()
    tiles: tuple[Tile, ...] = ()

    @property
    def category_labels(self) -> tuple[str, ...]:
        return tuple(format_number(c) if is_number(c) else str(c) for c in self.categories)

    @property
    def numeric_categories(self) -> bool:
        return bool(self.categories) and all(is_number(c) for c in self.categories)

    def y_values(self) -> list[float]:
        if self.points:
            return [y for _, y in self.points]
        if self.tiles:
            return [t.value for t in self.tiles]
        return [v for s in self.series for v in s.values]

    def to_dict(self) -> dict[str, Any]:
        if self.points:
            return {"points": [list(p) for p in self.points]}
        if self.tiles:
            tiles = []
            for t in self.tiles:
                item = {"region": t.region, "row": t.row, "col": t.col, "value": t.value}
                if t.name:
                    item["name"] = t.name
                tiles.append(item)
            return {"tiles": tiles}
        return {
            "categories": list(self.categories),
            "series": [{"name": s.name, "values": list(s.values)} for s in self.series],
        }


@dataclass(frozen=True)
class ChartSpec:
    """One chart pair (or, with manipulation "none", one plain chart), as authored in JSON.

    JSON fields: ``id`` ("G1_Q1", starting with its group), ``group`` ("G1"), ``chart_type``
    (one of ``CHART_TYPES``), ``manipulation`` (a ``MANIPULATIONS`` slug or "none"), ``title``,
    optional ``x_label`` / ``y_label`` (a map's ``y_label`` titles its color legend), ``data``,
    ``question`` (multiple-choice options embedded as "1. ... 2. ..."), ``answer_type`` (one of
    ``ANSWER_TYPES``), ``answer``, optional ``options``, ``unit`` and ``params``.

    ``data`` by chart type:
      - line, bar: ``{"categories": [...], "values": [...]}`` or
        ``{"categories": [...], "series": [{"name": ..., "values": [...]}, ...]}`` (1 or 2 series);
        numeric line categories are x positions (years).
      - pie: categories and values (one series, positive).
      - scatter: ``{"points": [[x, y], ...]}``.
      - map: ``{"tiles": [{"region": "WI", "row": 1, "col": 6, "value": 5.0}, ...]}`` on a grid.

    Answer keys are normalized to strings: the option number ("2") for multiple choice, the
    number ("1.25") for free text, "A > B > C" for ranking.

    ``params`` tunes the planted manipulation: ``y_start`` (truncated_y_axis), ``y_max``
    (compressed_y_axis), ``y2_range`` (dual_axes), ``icon`` (pictorial_bars: apple, person,
    barrel), ``front`` / ``pop_out`` (3D pies: the slice turned to the front / popped out),
    and for any pie ``value_labels`` (default true: slices labelled with their percentages).
    """

    id: str
    group: str
    chart_type: str
    manipulation: str
    title: str
    data: ChartData
    x_label: str = ""
    y_label: str = ""
    question: str = ""
    answer_type: str = ""
    answer: str = ""
    options: tuple[str, ...] = ()
    unit: str = ""
    params: Mapping[str, Any] = field(default_factory=dict)

    @property
    def has_pair(self) -> bool:
        return self.manipulation != NO_MANIPULATION

    @property
    def manipulation_label(self) -> str:
        m = MANIPULATIONS.get(self.manipulation)
        return m.label if m else "None"

    def chart_id(self, manipulated: bool) -> str:
        """CHARTOM chart ids: ``_1`` is the non-manipulated, ``_2`` the manipulated version."""
        return f"{self.id}_{2 if manipulated else 1}"

    @property
    def ranking(self) -> tuple[str, ...]:
        if self.answer_type != "ranking":
            return ()
        return tuple(part.strip() for part in self.answer.split(">"))

    @property
    def answer_number(self) -> float | None:
        return float(self.answer) if self.answer_type == "free_text" else None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "group": self.group,
            "chart_type": self.chart_type,
            "manipulation": self.manipulation,
            "title": self.title,
            "x_label": self.x_label,
            "y_label": self.y_label,
            "data": self.data.to_dict(),
        }
        if self.answer_type:
            out.update(question=self.question, answer_type=self.answer_type, answer=self.answer)
            if self.options:
                out["options"] = list(self.options)
        if self.unit:
            out["unit"] = self.unit
        if self.params:
            out["params"] = dict(self.params)
        return out
