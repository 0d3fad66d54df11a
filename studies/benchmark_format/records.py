"""What reading a benchmark produces: charts, problems, and the chart ids that name them."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from studies.images import ValidatedImage

_CHART_ID = re.compile(r"G0*(?P<g>\d{1,4})_Q0*(?P<q>\d{1,4})_(?P<v>[12])", re.IGNORECASE)


@dataclass(frozen=True)
class Problem:
    """Something that stops an import; ``row`` is None when no row applies."""

    file: str
    row: int | None
    message: str

    def __str__(self) -> str:
        where = f"{self.file}, row {self.row}" if self.row is not None else self.file
        return f"{where}: {self.message}"


@dataclass(frozen=True)
class ChartRecord:
    """One chart with its FACT question and answer key.

    ``answer_key`` is the key as written; ``answer_value`` its checked form:
    an option index (0-based) for multiple choice, a number for free text, the
    items in order for a ranking. Checking free text should use the written
    key, which keeps its scale word (see ``studies.answers.quantities.check_free_text``).
    """

    chart_id: str
    group: str
    question_id: str
    version: int
    chart_type: str
    manipulation: str
    manipulation_label: str
    answer_type: str
    question_text: str
    question: str
    options: list[str]
    answer_key: str
    answer_value: int | float | list[str]
    image: ValidatedImage

    @property
    def manipulated(self) -> bool:
        return self.version == 2


@dataclass
class Benchmark:
    """The valid charts, in id order, and every problem found; import only when ``ok``."""

    charts: list[ChartRecord] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass(frozen=True)
class ChartId:
    group: int
    question: int
    version: int

    def __str__(self) -> str:
        return f"G{self.group}_Q{self.question}_{self.version}"

    @property
    def group_id(self) -> str:
        return f"G{self.group}"

    @property
    def question_id(self) -> str:
        return f"G{self.group}_Q{self.question}"

    @property
    def partner(self) -> ChartId:
        return ChartId(self.group, self.question, 3 - self.version)


def parse_chart_id(text: str) -> ChartId | None:
    """``G7_Q1_2`` -> ChartId(7, 1, 2); case and stray spaces are tolerated, else None."""
    match = _CHART_ID.fullmatch(re.sub(r"\s+", "", str(text)))
    if not match:
        return None
    return ChartId(int(match["g"]), int(match["q"]), int(match["v"]))


CHARTOM_NAMING = "G<group>_Q<question>_<1|2>"


def follows_chartom_naming(chart_id: str) -> bool:
    """Whether a chart id can be written in the CHARTOM layout (G7_Q1_2: numbers only)."""
    parsed = parse_chart_id(chart_id)
    return parsed is not None and str(parsed) == chart_id


def chartom_naming_problem(chart_ids) -> str | None:
    """Why charts cannot be exported in the CHARTOM layout, before anyone tries; else None.

    Pages offer the layout's downloads only when this is None, so a researcher learns it
    where the download would be, not from a failed export at the end.
    """
    misnamed = sorted(c for c in chart_ids if not follows_chartom_naming(c))
    if not misnamed:
        return None
    shown = ", ".join(misnamed[:3]) + (
        f" and {len(misnamed) - 3} more" if len(misnamed) > 3 else ""
    )
    return (
        f"Not in the CHARTOM layout: its chart ids are {CHARTOM_NAMING} with numbers "
        f"(G1_Q2_1), and {shown} {'does' if len(misnamed) == 1 else 'do'} not follow it."
    )


def _sort_key(chart_id: ChartId) -> tuple[int, int, int]:
    return (chart_id.group, chart_id.question, chart_id.version)
