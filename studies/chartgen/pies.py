"""Pie charts: flat, 3D (tilted, with a side wall and perspective) and 3D with a popped-out slice.

Every version is drawn with the same polygon code; the flat pie is the special case with no
tilt, no depth and no perspective, so both versions of a pair share colors, order and labels.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from studies.answers.quantities import format_number

from .spec import ChartSpec
from .style import PALETTE, axes_pixels, new_axes, shade

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


@dataclass(frozen=True)
class View:
    tilt: float = 1.0  # vertical squash of the disk
    depth: float = 0.0  # height of the side wall, in radii
    perspective: float = 0.0  # how much nearer parts are enlarged
    explode: float = 0.0  # how far the popped-out slice moves, in radii


FLAT = View()
TILTED = View(tilt=0.5, depth=0.2, perspective=0.3)
TILTED_POPOUT = View(tilt=0.5, depth=0.2, perspective=0.3, explode=0.2)
LABEL_ROOM = 0.42  # space around the drawn pie for slice labels, in radii


def draw_pie(fig: Figure, spec: ChartSpec, manipulated: bool) -> None:
    kind = spec.manipulation if manipulated else ""
    ax = new_axes(fig, spec, frame=False)
    labels = spec.data.category_labels
    values = spec.data.series[0].values
    total = sum(values)
    fractions = [v / total for v in values]
    starts = [sum(fractions[:i]) for i in range(len(fractions))]
    popped = None
    if kind in ("pie_3d", "pie_3d_popout"):
        view = TILTED_POPOUT if kind == "pie_3d_popout" else TILTED
        front = labels.index(spec.params.get("front", _default_front(labels, values)))
        # Turn the pie so the chosen slice faces the viewer, where perspective enlarges it most.
        start = -90 + (starts[front] + fractions[front] / 2) * 360
        if kind == "pie_3d_popout":
            popped = labels.index(spec.params.get("pop_out", labels[front]))
    else:
        view, start = FLAT, 90.0
    _fit(ax, view)
    # Slices run clockwise from `start`, as in most published pies.
    arcs = [
        (start - (s + f) * 360, start - s * 360) for s, f in zip(starts, fractions, strict=True)
    ]
    _draw_body(ax, arcs, view, popped)
    if spec.params.get("value_labels", True):
        as_percent = abs(total - 100) < 0.5
        texts = [
            f"{label}\n{format_number(round(v if as_percent else f * 100, 1))}%"
            for label, v, f in zip(labels, values, fractions, strict=True)
        ]
    else:
        texts = list(labels)
    for i, ((a1, a2), text) in enumerate(zip(arcs, texts, strict=True)):
        _label(ax, math.radians((a1 + a2) / 2), text, view, view.explode if i == popped else 0)


def _fit(ax: Axes, view: View) -> None:
    """Centre the drawn pie, whatever its tilt, at one scale for every view: a tilted pie is
    not shrunk to fit, so its size compares with the flat one."""
    rim = [(math.cos(t), math.sin(t)) for t in _arc(0, 360)]
    pts = [_project(view, x, y, z) for x, y in rim for z in (0.0, -view.depth)]
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
    w_px, h_px = axes_pixels(ax)
    half_h = 1.0 + LABEL_ROOM
    ax.set_ylim(cy - half_h, cy + half_h)
    ax.set_xlim(cx - half_h * w_px / h_px, cx + half_h * w_px / h_px)


def _default_front(labels: tuple[str, ...], values: tuple[float, ...]) -> str:
    """The runner-up slice: put in front, it can pass for the largest."""
    order = sorted(range(len(values)), key=lambda i: (-values[i], i))
    return labels[order[1]]


def _project(view: View, x: float, y: float, z: float) -> tuple[float, float]:
    # y > 0 is the back of the disk; z is height (0 = top face, -depth = bottom).
    s = 1.0 / (1.0 + view.perspective * y)
    return x * s, (view.tilt * y + z) * s


def _arc(a1: float, a2: float) -> list[float]:
    steps = max(2, math.ceil(abs(a2 - a1) / 0.5))
    return [math.radians(a1 + (a2 - a1) * k / steps) for k in range(steps + 1)]


@dataclass(frozen=True)
class _Slices:
    """Painting the parts of a 3D pie's slices: top, front rim wall and radial cut faces."""

    ax: Axes
    arcs: list[tuple[float, float]]
    view: View
    popped: int | None

    def offset(self, i: int) -> tuple[float, float]:
        if i != self.popped:
            return 0.0, 0.0
        mid = math.radians(sum(self.arcs[i]) / 2)
        return self.view.explode * math.cos(mid), self.view.explode * math.sin(mid)

    def top(self, i: int) -> None:
        ox, oy = self.offset(i)
        view = self.view
        pts = [_project(view, ox, oy, 0.0)]
        pts += [
            _project(view, ox + math.cos(t), oy + math.sin(t), 0.0) for t in _arc(*self.arcs[i])
        ]
        _poly(self.ax, pts, PALETTE[i % len(PALETTE)])

    def wall(self, i: int) -> None:
        # Only the front half of the rim (sin < 0) faces the viewer.
        ox, oy = self.offset(i)
        view = self.view
        run: list[float] = []
        for t in [*_arc(*self.arcs[i]), None]:
            if t is not None and math.sin(t) <= 0:
                run.append(t)
                continue
            if len(run) > 1:
                upper = [_project(view, ox + math.cos(a), oy + math.sin(a), 0.0) for a in run]
                lower = [
                    _project(view, ox + math.cos(a), oy + math.sin(a), -view.depth)
                    for a in reversed(run)
                ]
                _poly(self.ax, upper + lower, shade(PALETTE[i % len(PALETTE)], 0.72))
            run = []

    def cut(self, i: int, angle: float) -> None:
        ox, oy = self.offset(i)
        view = self.view
        a = math.radians(angle)
        rim = (ox + math.cos(a), oy + math.sin(a))
        pts = [
            _project(view, ox, oy, 0.0),
            _project(view, *rim, 0.0),
            _project(view, *rim, -view.depth),
            _project(view, ox, oy, -view.depth),
        ]
        _poly(self.ax, pts, shade(PALETTE[i % len(PALETTE)], 0.6))


def _draw_body(ax: Axes, arcs: list[tuple[float, float]], view: View, popped: int | None) -> None:
    slices = _Slices(ax, arcs, view, popped)
    if popped is None:
        for i in range(len(arcs)):
            slices.wall(i)
        for i in range(len(arcs)):
            slices.top(i)
        return

    # A radial face shows only if its outward side turns towards the viewer (towards -y). At
    # the popped slice's clockwise edge a1 the face of the body looks anticlockwise, at a2
    # clockwise; the popped slice's own faces look the other way.
    a1, a2 = arcs[popped]
    cos1, cos2 = math.cos(math.radians(a1)), math.cos(math.radians(a2))
    n = len(arcs)
    body_faces = [((popped + 1) % n, a1)] if cos1 < 0 else []
    body_faces += [((popped - 1) % n, a2)] if cos2 > 0 else []
    own_faces = [a for a, visible in ((a1, cos1 > 0), (a2, cos2 < 0)) if visible]
    others = [i for i in range(n) if i != popped]

    def body() -> None:
        for i, angle in body_faces:
            slices.cut(i, angle)
        for i in others:
            slices.wall(i)
        for i in others:
            slices.top(i)

    def popped_slice() -> None:
        for angle in own_faces:
            slices.cut(popped, angle)
        slices.wall(popped)
        slices.top(popped)

    # The nearer of the two is painted last.
    if math.sin(math.radians((a1 + a2) / 2)) < 0:
        body()
        popped_slice()
    else:
        popped_slice()
        body()


def _poly(ax: Axes, points: list[tuple[float, float]], color) -> None:
    from matplotlib.patches import Polygon

    ax.add_patch(Polygon(points, closed=True, facecolor=color, edgecolor="white", linewidth=0.8))


def _label(ax: Axes, mid: float, text: str, view: View, explode: float) -> None:
    r = 1.14 + explode
    x, y = math.cos(mid) * r, math.sin(mid) * r
    z = -view.depth if y < 0 else 0.0
    px, py = _project(view, x, y, z)
    c = math.cos(mid)
    ha = "left" if c > 0.15 else "right" if c < -0.15 else "center"
    va = "top" if y < -0.3 else "bottom" if y > 0.3 else "center"
    ax.text(px, py, text, ha=ha, va=va, fontsize=11, linespacing=1.15)
