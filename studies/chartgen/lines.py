"""Line and scatter charts and their axis manipulations."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .spec import ChartSpec
from .style import (
    BLUE,
    SERIES_COLORS,
    Y_BINS,
    category_ticks,
    grid_y,
    label_axes,
    new_axes,
    number_formatter,
    padded_limits,
    set_log_y,
    set_value_axis,
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure

# A second marker shape tells the series apart without relying on color.
MARKERS = ("o", "s")


def draw_line(fig: Figure, spec: ChartSpec, manipulated: bool) -> None:
    kind = spec.manipulation if manipulated else ""
    if kind == "dual_axes":
        _draw_dual_axes(fig, spec)
        return
    data = spec.data
    ax = new_axes(fig, spec)
    positions = _x_positions(spec, equal_spacing=kind == "inconsistent_x_axis")
    for series, color, marker in zip(data.series, SERIES_COLORS, MARKERS, strict=False):
        ax.plot(positions, series.values, color=color, linewidth=2.2, marker=marker, markersize=5.5)
    if len(data.series) > 1:
        ax.legend([s.name for s in data.series], loc="best")
    set_value_axis(ax, spec, data.y_values(), manipulated)
    _finish_x(ax, positions, data.category_labels)
    if kind == "inverted_x_axis":
        ax.invert_xaxis()
    grid_y(ax)
    label_axes(ax, spec)


def draw_scatter(fig: Figure, spec: ChartSpec, manipulated: bool) -> None:
    from matplotlib.ticker import MaxNLocator

    kind = spec.manipulation if manipulated else ""
    ax = new_axes(fig, spec)
    xs = [x for x, _ in spec.data.points]
    ys = [y for _, y in spec.data.points]
    ax.scatter(xs, ys, s=42, color=BLUE, edgecolors="white", linewidths=0.8, zorder=3)
    ax.set_xlim(*padded_limits(xs))
    ax.xaxis.set_major_locator(MaxNLocator(nbins=8, steps=(1, 2, 2.5, 5, 10)))
    ax.xaxis.set_major_formatter(number_formatter())
    if kind == "log_y_axis":
        set_log_y(ax, ys)
    else:
        ax.set_ylim(*padded_limits(ys))
        ax.yaxis.set_major_locator(MaxNLocator(nbins=Y_BINS, steps=(1, 2, 2.5, 5, 10)))
        ax.yaxis.set_major_formatter(number_formatter())
    if kind == "inverted_y_axis":
        ax.invert_yaxis()
    if kind == "inverted_x_axis":
        ax.invert_xaxis()
    ax.set_axisbelow(True)
    ax.grid(True, color="#e3e3e3", linewidth=0.8)
    label_axes(ax, spec)


def _x_positions(spec: ChartSpec, *, equal_spacing: bool) -> list[float]:
    """Numeric x values sit at their true distances unless the manipulation evens them out."""
    data = spec.data
    if data.numeric_categories and not equal_spacing:
        return [float(c) for c in data.categories]
    return [float(i) for i in range(len(data.categories))]


def _finish_x(ax, positions: list[float], labels: tuple[str, ...]) -> None:
    span = (positions[-1] - positions[0]) or 1.0
    ax.set_xlim(min(positions) - 0.04 * span, max(positions) + 0.04 * span)
    category_ticks(ax, positions, labels)


def _draw_dual_axes(fig: Figure, spec: ChartSpec) -> None:
    """Each series gets its own y-axis; the right one is fitted tightly to its series so the
    lines appear to cross where the real values never do."""
    from matplotlib.ticker import MaxNLocator

    first, second = spec.data.series
    ax = new_axes(fig, spec, right=0.87)
    ax2 = ax.twinx()
    ax2.spines["right"].set_visible(True)
    positions = _x_positions(spec, equal_spacing=False)
    line1 = ax.plot(
        positions, first.values, color=SERIES_COLORS[0], linewidth=2.2, marker=MARKERS[0]
    )
    line2 = ax2.plot(
        positions, second.values, color=SERIES_COLORS[1], linewidth=2.2, marker=MARKERS[1]
    )
    set_value_axis(ax, spec, first.values, manipulated=False)
    if "y2_range" in spec.params:
        low, high = (float(v) for v in spec.params["y2_range"])
    else:
        lo, hi = min(second.values), max(second.values)
        pad = 0.05 * ((hi - lo) or abs(hi) or 1.0)
        low, high = lo - pad, hi + pad
    ax2.set_ylim(low, high)
    ax2.yaxis.set_major_locator(MaxNLocator(nbins=Y_BINS, steps=(1, 2, 2.5, 5, 10)))
    ax2.yaxis.set_major_formatter(number_formatter())
    for axis, series, color in ((ax, first, SERIES_COLORS[0]), (ax2, second, SERIES_COLORS[1])):
        axis.set_ylabel(series.name, color=color, labelpad=8)
        axis.tick_params(axis="y", colors=color)
    _finish_x(ax, positions, spec.data.category_labels)
    ax.legend(line1 + line2, [first.name, second.name], loc="upper left")
    grid_y(ax)
    if spec.x_label:
        ax.set_xlabel(spec.x_label, labelpad=8)
