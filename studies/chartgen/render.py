"""Render chart specs to PNG bytes.

Rendering is deterministic: the same spec gives the same bytes on every run with the same
matplotlib and font files (fixed size, dpi, bundled font, no timestamps or software tag in the
PNG). Figures are built with the object-oriented API, never pyplot, so renders hold no global
figure state and can run inside a web process.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import TYPE_CHECKING

from .bars import draw_bar
from .lines import draw_line, draw_scatter
from .pies import draw_pie
from .spec import ChartSpec
from .style import DPI, HEIGHT_PX, RC, WIDTH_PX
from .tilemaps import draw_map

if TYPE_CHECKING:
    from matplotlib.figure import Figure

SIZE_PX = (WIDTH_PX, HEIGHT_PX)

_DRAWERS: dict[str, Callable[[Figure, ChartSpec, bool], None]] = {
    "line": draw_line,
    "bar": draw_bar,
    "scatter": draw_scatter,
    "pie": draw_pie,
    "map": draw_map,
}


def chart_figure(spec: ChartSpec, manipulated: bool) -> Figure:
    """The matplotlib figure of one version of the chart (for inspection or other formats).

    ``manipulated=True`` draws the planted manipulation; it is a ``ValueError`` for a spec whose
    manipulation is ``"none"``, which has only a plain version.
    """
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    if manipulated and not spec.has_pair:
        raise ValueError(f"{spec.id} has no manipulation, so it has no manipulated version")
    with matplotlib.rc_context(RC):
        fig = Figure(figsize=(WIDTH_PX / DPI, HEIGHT_PX / DPI), dpi=DPI, facecolor="white")
        FigureCanvasAgg(fig)
        _DRAWERS[spec.chart_type](fig, spec, manipulated)
        # Text is laid out when drawn; drawing here, under the same rcParams, fixes it.
        fig.canvas.draw()
    return fig


def render_chart(spec: ChartSpec, manipulated: bool) -> bytes:
    """PNG bytes (800 x 560) of the non-manipulated (``_1``) or manipulated (``_2``) chart.

    ``manipulated=True`` on a spec with manipulation "none" raises ``ValueError``.
    """
    import matplotlib

    fig = chart_figure(spec, manipulated)
    buffer = io.BytesIO()
    with matplotlib.rc_context(RC):
        fig.savefig(buffer, format="png", dpi=DPI, metadata={"Software": None})
    return buffer.getvalue()


def render_pair(spec: ChartSpec) -> tuple[bytes, bytes]:
    """PNG bytes of ``<id>_1`` (non-manipulated) and ``<id>_2`` (manipulated).

    A spec with manipulation "none" has no pair: ``ValueError``; use ``render_chart``.
    """
    return render_chart(spec, manipulated=False), render_chart(spec, manipulated=True)
