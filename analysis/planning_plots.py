"""The planner's curve: precision or power against the number of included participants."""

from __future__ import annotations

import numpy as np

from analysis.planning import power_curve, precision_curve
from analysis.svg import figure_to_svg


def _axis_ns(needed: int) -> np.ndarray:
    top = max(20, int(needed * 1.6))
    return np.unique(np.linspace(5, top, 120).astype(int))


def planning_curve_svg(
    *, kind: str, needed: int, goal: float, p: float = 0.5, pair=(0.25, 0.75)
) -> str:
    """An SVG of half-width (``kind="precision"``, at HMI ``p``) or power (``kind="power"``,
    for the HMIs ``pair``) against n, with the goal and the needed n marked."""
    from matplotlib.figure import Figure

    ns = _axis_ns(needed)
    fig = Figure(figsize=(6.4, 3.2))
    ax = fig.add_subplot()
    if kind == "precision":
        xs, ys = precision_curve(ns, p)
        worst_xs, worst_ys = precision_curve(ns, 0.5)
        if p != 0.5:
            ax.plot(
                worst_xs, worst_ys, color="#999999", linestyle=":", label="HMI 0.5 (worst case)"
            )
        ax.plot(xs, ys, color="#1f77b4", label=f"HMI {p:.2f}")
        ax.set_ylabel("95% interval half-width")
        goal_label = f"target ±{goal:.2f}"
    elif kind == "power":
        xs, ys = power_curve(ns, *pair)
        ax.plot(xs, ys, color="#ff7f0e", label=f"HMI {pair[0]:.2f} vs {pair[1]:.2f}")
        ax.set_ylabel("power (McNemar, α = 0.05)")
        ax.set_ylim(0, 1.02)
        goal_label = f"power {goal:.2f}"
    else:
        raise ValueError("kind must be 'precision' or 'power'")
    ax.axhline(goal, color="#555555", linewidth=0.8, linestyle="--", label=goal_label)
    ax.axvline(needed, color="#2ca02c", linewidth=0.8, label=f"{needed} included")
    ax.set_xlabel("included participants")
    ax.grid(True, linewidth=0.3, color="#dddddd")
    ax.legend(fontsize=8, frameon=False)
    return figure_to_svg(fig)
