"""Chart generator: benchmark specs of chart pairs and their deterministic PNG rendering.

Pure Python on matplotlib; it never imports Django, so commands, pages and tasks can all use it.
"""

from .render import SIZE_PX, chart_figure, render_chart, render_pair
from .spec import (
    ANSWER_TYPES,
    CHART_TYPES,
    MANIPULATIONS,
    NO_MANIPULATION,
    ChartData,
    ChartSpec,
    Manipulation,
    Series,
    SpecError,
    SpecProblem,
    Tile,
)
from .validate import load_specs, spec_from_dict

__all__ = [
    "ANSWER_TYPES",
    "CHART_TYPES",
    "MANIPULATIONS",
    "NO_MANIPULATION",
    "SIZE_PX",
    "ChartData",
    "ChartSpec",
    "Manipulation",
    "Series",
    "SpecError",
    "SpecProblem",
    "Tile",
    "chart_figure",
    "load_specs",
    "render_chart",
    "render_pair",
    "spec_from_dict",
]
