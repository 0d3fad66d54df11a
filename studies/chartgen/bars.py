"""Bar charts: plain and grouped bars, pictorial bars and 3D bars."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from .spec import ChartSpec
from .style import (
    GRID,
    SERIES_COLORS,
    category_ticks,
    grid_y,
    label_axes,
    new_axes,
    nice_ticks,
    number_formatter,
    set_value_axis,
    shade,
    units_per_pixel,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

BAR_WIDTH = 0.6
# Widest an icon may be, as a share of its category slot, so neighbours never touch.
ICON_SLOT = 0.92
DEPTH_PX, DEPTH_ANGLE = 20.0, math.radians(40)


def draw_bar(fig: Figure, spec: ChartSpec, manipulated: bool) -> None:
    kind = spec.manipulation if manipulated else ""
    ax = new_axes(fig, spec)
    data = spec.data
    n = len(data.categories)
    ax.set_xlim(-0.6, n - 0.4)
    positions = list(range(n))
    if kind == "pictorial_bars":
        set_value_axis(ax, spec, data.y_values(), manipulated=False)
        _draw_icons(ax, data.series[0].values, spec.params.get("icon", "apple"))
        grid_y(ax)
    elif kind == "bar_3d":
        _draw_3d_bars(ax, data.series[0].values)
    else:
        width = BAR_WIDTH / len(data.series)
        for i, (series, color) in enumerate(zip(data.series, SERIES_COLORS, strict=False)):
            offset = (i - (len(data.series) - 1) / 2) * width
            ax.bar([p + offset for p in positions], series.values, width * 0.95, color=color)
        if len(data.series) > 1:
            ax.legend([s.name for s in data.series], loc="upper left")
        set_value_axis(ax, spec, data.y_values(), manipulated)
        grid_y(ax)
    category_ticks(ax, positions, data.category_labels)
    ax.tick_params(axis="x", length=0)
    label_axes(ax, spec)


def _draw_icons(ax: Axes, values: tuple[float, ...], icon: str) -> None:
    """One icon per bar, scaled in both directions with the value.

    The top of each icon marks the value on the axis, as a bar would, but its area grows with
    the square of the value: the perceptual trap of pictorial bars.
    """
    ux, uy = units_per_pixel(ax)
    shape, aspect = ICON_SHAPES[icon]
    tallest_px = max(values) / uy
    # Width in x units per unit of icon height (in px), squeezed if the widest icon would not fit.
    aspect = min(aspect, ICON_SLOT / ux / tallest_px)
    for x, value in enumerate(values):
        if value <= 0:
            continue
        height = value
        width = aspect * (value / uy) * ux
        for patch in shape(x, height, width):
            ax.add_patch(patch)


def _apple(cx: float, h: float, w: float):
    from matplotlib.patches import Ellipse, Rectangle

    return [
        Ellipse((cx, 0.43 * h), 0.98 * w, 0.86 * h, color="#c8362d", zorder=2),
        Rectangle((cx - 0.03 * w, 0.8 * h), 0.06 * w, 0.2 * h, color="#6b4423", zorder=1),
        Ellipse((cx + 0.17 * w, 0.9 * h), 0.28 * w, 0.1 * h, color="#3a9b5c", zorder=2),
    ]


def _person(cx: float, h: float, w: float):
    from matplotlib.patches import Ellipse, Polygon

    return [
        Ellipse((cx, 0.86 * h), 0.5 * w, 0.28 * h, color="#2f6db5", zorder=2),
        Polygon(
            [
                (cx - 0.5 * w, 0.0),
                (cx + 0.5 * w, 0.0),
                (cx + 0.42 * w, 0.7 * h),
                (cx - 0.42 * w, 0.7 * h),
            ],
            closed=True,
            color="#2f6db5",
            zorder=2,
        ),
    ]


def _barrel(cx: float, h: float, w: float):
    from matplotlib.patches import Polygon, Rectangle

    body = Polygon(
        [
            (cx - 0.4 * w, 0.0),
            (cx + 0.4 * w, 0.0),
            (cx + 0.5 * w, 0.5 * h),
            (cx + 0.4 * w, h),
            (cx - 0.4 * w, h),
            (cx - 0.5 * w, 0.5 * h),
        ],
        closed=True,
        color="#a0662f",
        zorder=2,
    )
    hoops = [
        Rectangle((cx - 0.47 * w, y * h), 0.94 * w, 0.05 * h, color="#5a3a1c", zorder=3)
        for y in (0.18, 0.475, 0.77)
    ]
    return [body, *hoops]


# Shape drawer and natural width / height ratio.
ICON_SHAPES = {"apple": (_apple, 0.95), "person": (_person, 0.45), "barrel": (_barrel, 0.72)}


def _draw_3d_bars(ax: Axes, values: tuple[float, ...]) -> None:
    """Bars with a top and a side face receding up and to the right.

    The value is the height of the front face, but the gridlines run along the back wall, so a
    reader lining a bar top up with the grid reads it too low: the classic 3D-chart trap.
    """
    from matplotlib.patches import Polygon

    ticks = nice_ticks(0, max(values) * 1.02)
    ax.set_ylim(0, ticks[-1])
    _, uy = units_per_pixel(ax)
    # Room above the highest tick for the receding depth; the depth in data units then grows by
    # top / ticks[-1] (a few percent), which the 1.1 margin covers.
    ax.set_ylim(0, ticks[-1] + 1.1 * DEPTH_PX * math.sin(DEPTH_ANGLE) * uy)
    ux, uy = units_per_pixel(ax)
    dx, dy = DEPTH_PX * math.cos(DEPTH_ANGLE) * ux, DEPTH_PX * math.sin(DEPTH_ANGLE) * uy
    ax.set_yticks(ticks)
    ax.yaxis.set_major_formatter(number_formatter())
    ax.spines["left"].set_bounds(0, ticks[-1])
    x0, x1 = ax.get_xlim()
    for t in ticks:
        ax.plot([x0, x0 + dx, x1], [t, t + dy, t + dy], color=GRID, linewidth=0.8, zorder=0)
    ax.plot([x0 + dx, x0 + dx], [dy, ticks[-1] + dy], color=GRID, linewidth=0.8, zorder=0)
    ax.add_patch(
        Polygon(
            [(x0, 0), (x1 - dx, 0), (x1, dy), (x0 + dx, dy)],
            closed=True,
            color="#efefef",
            zorder=0,
        )
    )
    color = SERIES_COLORS[0]
    half = BAR_WIDTH / 2
    for x, v in enumerate(values):
        left, right = x - half, x + half
        faces = [
            ([(left, 0), (right, 0), (right, v), (left, v)], color),
            (
                [(left, v), (right, v), (right + dx, v + dy), (left + dx, v + dy)],
                shade(color, 1.35),
            ),
            ([(right, 0), (right + dx, dy), (right + dx, v + dy), (right, v)], shade(color, 0.7)),
        ]
        for points, face_color in faces:
            ax.add_patch(
                Polygon(points, closed=True, facecolor=face_color, edgecolor="white", lw=0.6)
            )
    ax.spines["bottom"].set_visible(False)
