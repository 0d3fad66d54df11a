"""Tile-grid choropleth maps: one equal square per region, colored by its value."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from .spec import ChartSpec
from .style import axes_pixels, new_axes, nice_ticks, number_formatter

if TYPE_CHECKING:
    from matplotlib.figure import Figure


@cache
def _scale():
    """Light to dark blue. The lightest end is kept off white so every tile stays visible."""
    from matplotlib.colors import LinearSegmentedColormap

    return LinearSegmentedColormap.from_list("chartroom_blues", ["#e4eef9", "#6fa1d6", "#0b2f66"])


GAP = 0.08  # space between tiles, as a share of a tile


def draw_map(fig: Figure, spec: ChartSpec, manipulated: bool) -> None:
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize
    from matplotlib.patches import Rectangle

    inverted = manipulated and spec.manipulation == "inverted_color_scale"
    ax = new_axes(fig, spec, right=0.84, frame=False)
    tiles = spec.data.tiles
    values = [t.value for t in tiles]
    ticks = nice_ticks(min(values), max(values), nbins=5)
    norm = Normalize(vmin=ticks[0], vmax=ticks[-1])
    # The planted manipulation: dark now means low, against the usual darker-is-more reading.
    cmap = _scale().reversed() if inverted else _scale()

    rows = max(t.row for t in tiles) + 1
    cols = max(t.col for t in tiles) + 1
    w_px, h_px = axes_pixels(ax)
    # Square tiles: fit the grid into the axes box and centre it.
    scale = max(cols / w_px, rows / h_px)
    half_w, half_h = scale * w_px / 2, scale * h_px / 2
    ax.set_xlim(cols / 2 - half_w, cols / 2 + half_w)
    ax.set_ylim(rows / 2 + half_h, rows / 2 - half_h)
    font = max(6.0, min(12.0, 0.45 * (1 / scale) * 72 / 100))
    for t in tiles:
        color = cmap(norm(t.value))
        ax.add_patch(
            Rectangle(
                (t.col + GAP / 2, t.row + GAP / 2), 1 - GAP, 1 - GAP, facecolor=color, linewidth=0
            )
        )
        ax.text(
            t.col + 0.5,
            t.row + 0.5,
            t.region,
            ha="center",
            va="center",
            fontsize=font,
            color="white" if _luminance(color) < 0.5 else "#1a1a1a",
        )

    box = ax.get_position()
    cax = fig.add_axes((0.87, box.y0 + 0.1 * box.height, 0.025, 0.8 * box.height))
    bar = fig.colorbar(ScalarMappable(norm=norm, cmap=cmap), cax=cax, ticks=ticks)
    bar.ax.yaxis.set_major_formatter(number_formatter())
    bar.outline.set_visible(False)
    if spec.y_label:
        bar.set_label(spec.y_label, labelpad=8)
    if inverted:
        # The legend follows the colors: dark at the top, so its numbers now run downwards.
        bar.ax.invert_yaxis()


def _luminance(color) -> float:
    from matplotlib.colors import to_rgb

    r, g, b = to_rgb(color)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b
