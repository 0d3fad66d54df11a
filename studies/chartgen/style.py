"""Shared look and axis arithmetic for every chart family."""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING

from studies.answers.quantities import format_number

from .spec import ChartSpec

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.ticker import FuncFormatter

WIDTH_PX, HEIGHT_PX, DPI = 800, 560, 100

# rcParams are set for the duration of each render only, so other plots in the process
# keep their own settings. A bundled font keeps the pixels the same on every machine.
RC = {
    "font.family": "DejaVu Sans",
    "font.size": 11,
    "axes.titlesize": 14,
    "axes.titleweight": "bold",
    "axes.labelsize": 12,
    "axes.edgecolor": "#444444",
    "axes.linewidth": 1.0,
    "xtick.labelsize": 11,
    "ytick.labelsize": 11,
    "legend.fontsize": 11,
    "legend.frameon": False,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.unicode_minus": False,
    "path.simplify": False,
}

BLUE = "#2f6db5"
ORANGE = "#e0702b"
SERIES_COLORS = (BLUE, ORANGE)
PALETTE = ("#2f6db5", "#e0702b", "#3a9b5c", "#c23b3b", "#7d5ba6", "#8c6d31", "#d4649a", "#5d8f9e")
GRID = "#d9d9d9"
# Fixed margins (no layout engine) keep every chart's plot area in the same place; the left one
# leaves room for tick labels like "50,000" plus the axis label.
LEFT = 0.125
Y_BINS = 6
_STEPS = (1, 2, 2.5, 5, 10)


def new_axes(fig: Figure, spec: ChartSpec, *, right: float = 0.95, frame: bool = True) -> Axes:
    ax = fig.add_axes((LEFT, 0.13, right - LEFT, 0.72))
    ax.set_title(textwrap.fill(spec.title, 70), pad=14)
    if not frame:
        ax.set_axis_off()
    return ax


def label_axes(ax: Axes, spec: ChartSpec) -> None:
    if spec.x_label:
        ax.set_xlabel(spec.x_label, labelpad=8)
    if spec.y_label:
        ax.set_ylabel(spec.y_label, labelpad=8)


def axes_pixels(ax: Axes) -> tuple[float, float]:
    """Size of the axes box in pixels; fixed because every figure has the same layout."""
    box = ax.get_position()
    return box.width * WIDTH_PX, box.height * HEIGHT_PX


def units_per_pixel(ax: Axes) -> tuple[float, float]:
    w, h = axes_pixels(ax)
    x0, x1 = ax.get_xlim()
    y0, y1 = ax.get_ylim()
    return abs(x1 - x0) / w, abs(y1 - y0) / h


def shade(color: str, factor: float) -> tuple[float, float, float]:
    """factor < 1 darkens, > 1 lightens towards white."""
    from matplotlib.colors import to_rgb

    r, g, b = to_rgb(color)
    if factor <= 1:
        return (r * factor, g * factor, b * factor)
    t = min(factor - 1, 1.0)
    return (r + (1 - r) * t, g + (1 - g) * t, b + (1 - b) * t)


def nice_ticks(lo: float, hi: float, nbins: int = Y_BINS) -> list[float]:
    from matplotlib.ticker import MaxNLocator

    return [float(t) for t in MaxNLocator(nbins=nbins, steps=_STEPS).tick_values(lo, hi)]


def nice_floor(value: float) -> float:
    """Round a positive number down to one significant digit."""
    p = 10 ** math.floor(math.log10(value))
    return math.floor(value / p) * p


def zero_based_limits(values: Sequence[float], pad: float = 0.06) -> tuple[float, float]:
    """Honest value axis: it includes 0 and ends on a round tick above the data."""
    lo, hi = min(0.0, min(values)), max(0.0, max(values))
    if hi == lo:
        hi = lo + 1
    span = hi - lo
    ticks = nice_ticks(lo - (pad * span if lo < 0 else 0), hi + (pad * span if hi > 0 else 0))
    return ticks[0], ticks[-1]


def padded_limits(values: Sequence[float], pad: float = 0.06) -> tuple[float, float]:
    """Scatter axes: a little room around the data, never dipping below 0 for positive data."""
    lo, hi = min(values), max(values)
    span = (hi - lo) or abs(hi) or 1.0
    low, high = lo - pad * span, hi + pad * span
    if lo >= 0 > low:
        low = 0.0
    return low, high


def truncated_start(values: Sequence[float]) -> float:
    """A round baseline well above 0 but below every value, as in CHARTOM's 240 for 250 vs 300."""
    lo, hi = min(values), max(values)
    span = (hi - lo) or abs(hi) * 0.1
    target = lo - 0.2 * span
    ticks = nice_ticks(target, hi)
    step = ticks[1] - ticks[0]
    start = math.floor(target / step) * step
    if start <= 0:
        start = nice_floor(lo / 2)
    return float(start)


def compressed_top(values: Sequence[float]) -> float:
    """Five times the data range leaves the data squeezed into the bottom fifth."""
    return nice_ticks(0, 5 * max(values))[-1]


def set_value_axis(ax: Axes, spec: ChartSpec, values: Sequence[float], manipulated: bool) -> None:
    """Y-axis of line and bar charts: honest from 0, or the planted axis manipulation."""
    from matplotlib.ticker import MaxNLocator

    low, high = zero_based_limits(values)
    kind = spec.manipulation if manipulated else ""
    if kind == "truncated_y_axis":
        low = float(spec.params.get("y_start", truncated_start(values)))
        ticks = nice_ticks(low, max(values))
        step = ticks[1] - ticks[0]
        high = ticks[-1] if ticks[-1] > max(values) else ticks[-1] + step
        # Ticks counted from the baseline itself, so the truncated start is printed on the axis.
        ax.set_ylim(low, high)
        ax.set_yticks(_frange(low, high, step))
        ax.yaxis.set_major_formatter(number_formatter())
        return
    elif kind == "compressed_y_axis":
        high = float(spec.params.get("y_max", compressed_top(values)))
    elif kind == "log_y_axis":
        set_log_y(ax, values)
        return
    ax.set_ylim(low, high)
    ax.yaxis.set_major_locator(MaxNLocator(nbins=Y_BINS, steps=_STEPS))
    ax.yaxis.set_major_formatter(number_formatter())
    if kind == "inverted_y_axis":
        ax.invert_yaxis()


def set_log_y(ax: Axes, values: Sequence[float]) -> None:
    from matplotlib.ticker import LogLocator, NullFormatter

    ax.set_yscale("log")
    ax.set_ylim(nice_floor(min(values) / 1.4), max(values) * 1.4)
    # Labels between the decades keep values readable on a log scale; over a narrow range even
    # 1-2-5 steps would leave only two labels.
    narrow = max(values) / min(values) < 20
    subs = tuple(float(k) for k in range(1, 10)) if narrow else (1.0, 2.0, 5.0)
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=subs))
    ax.yaxis.set_major_formatter(number_formatter())
    ax.yaxis.set_minor_formatter(NullFormatter())


def number_formatter() -> FuncFormatter:
    """Tick labels as written numbers: 2018, 2.5, 40,000 (no 2018.0 or 4e4)."""
    from matplotlib.ticker import FuncFormatter

    def fmt(value: float, _pos) -> str:
        value = round(value, 9)
        if abs(value) >= 10000 and float(value).is_integer():
            return f"{value:,.0f}"
        return format_number(value)

    return FuncFormatter(fmt)


def grid_y(ax: Axes) -> None:
    ax.set_axisbelow(True)
    ax.yaxis.grid(True, color=GRID, linewidth=0.8)


def category_ticks(ax: Axes, positions: Sequence[float], labels: Sequence[str]) -> None:
    long_labels = sum(len(s) for s in labels) > 70 or len(labels) > 12
    ax.set_xticks(list(positions), list(labels))
    if long_labels:
        for tick in ax.get_xticklabels():
            tick.set_rotation(35)
            tick.set_horizontalalignment("right")


def _frange(low: float, high: float, step: float) -> list[float]:
    count = int(round((high - low) / step))
    return [round(low + i * step, 9) for i in range(count + 1) if low + i * step <= high + 1e-9]
