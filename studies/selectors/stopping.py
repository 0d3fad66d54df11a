"""Reads for the stopping rule: each chart's interval width and what it still needs."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from analysis.stopping import precision_status
from studies.models import Chart, Study
from studies.selectors.results import chart_error_counts


@dataclass(frozen=True)
class ChartPrecision:
    chart_id: str
    n: int
    n_wrong: int
    half_width: float | None
    still_needed: int

    @property
    def hmi(self) -> float | None:
        return self.n_wrong / self.n if self.n else None


@dataclass(frozen=True)
class StudyPrecision:
    target: float
    included: int
    charts: list[ChartPrecision]
    met: bool

    @property
    def largest_half_width(self) -> float | None:
        widths = [c.half_width for c in self.charts if c.half_width is not None]
        return max(widths) if widths else None

    @property
    def still_needed(self) -> int:
        """Included participants still needed for the least precise chart (all see every chart)."""
        return max((c.still_needed for c in self.charts), default=0)


def study_precision(study: Study, included_ids: Iterable[int]) -> StudyPrecision:
    """Per chart of the study, over the given included sessions: width and projection.

    Three queries: the study's charts, its session ids, and the database's per-chart counts.
    """
    ids = list(included_ids)
    charts = list(
        Chart.objects.filter(question__study_pairs__study=study)
        .order_by("chart_id")
        .values_list("id", "chart_id")
    )
    counts = chart_error_counts(study, ids)
    n = [counts.get(pk, (0, 0, 0))[0] for pk, _ in charts]
    wrong = [counts.get(pk, (0, 0, 0))[1] for pk, _ in charts]
    target = study.stopping_half_width
    status = precision_status(wrong, n, target)
    rows = [
        ChartPrecision(
            chart_id=name,
            n=n[i],
            n_wrong=wrong[i],
            half_width=None if n[i] == 0 else float(status["half_width"][i]),
            still_needed=int(status["still_needed"][i]),
        )
        for i, (_pk, name) in enumerate(charts)
    ]
    return StudyPrecision(target=target, included=len(ids), charts=rows, met=status["met"])
