"""Server-rendered SVG figures of HMI results (CHARTOM Figure 2 and a per-group view)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from analysis.svg import figure_to_svg

# The paper's Figure 2 colours: blue for non-manipulated, orange for manipulated.
NON_MANIPULATED_COLOUR = "#1f77b4"
MANIPULATED_COLOUR = "#ff7f0e"
_VERSION_COLOUR = {1: NON_MANIPULATED_COLOUR, 2: MANIPULATED_COLOUR}


def _text(value) -> str:
    # A pair of "$" in a label would switch matplotlib to mathtext.
    return str(value).replace("$", r"\$")


def _placeholder(message: str) -> str:
    fig = Figure(figsize=(6, 1.2))
    fig.text(0.5, 0.5, message, ha="center", va="center", fontsize=11, color="#555555")
    return figure_to_svg(fig)


def sorted_hmi_svg(hmi_frame: pd.DataFrame, *, title: str | None = None) -> str:
    """All charts sorted by HMI, coloured by version, with Wilson interval bars.

    Mirrors Figure 2 of the CHARTOM paper. Needs chart_id, hmi and version
    (1 non-manipulated, 2 manipulated); ci_low and ci_high are drawn when
    present. Charts without an HMI are left out and counted in a footnote.
    """
    frame = pd.DataFrame(hmi_frame)
    missing = [c for c in ("chart_id", "hmi", "version") if c not in frame.columns]
    if missing:
        raise ValueError(f"hmi_frame is missing column(s) {missing}")
    version = pd.to_numeric(frame["version"], errors="coerce")
    if not version.isin([1, 2]).all():
        raise ValueError("version must be 1 (non-manipulated) or 2 (manipulated)")
    frame = frame.assign(version=version.astype(int), hmi=pd.to_numeric(frame["hmi"]))
    shown = frame[frame["hmi"].notna()]
    n_hidden = len(frame) - len(shown)
    if shown.empty:
        return _placeholder("No HMI values yet: no included participant has answered a chart.")
    # A stable sort keeps ties in input order, so the same data draws the same figure.
    shown = shown.sort_values("hmi", kind="mergesort").reset_index(drop=True)

    n = len(shown)
    fig = Figure(figsize=(min(max(6.0, 0.14 * n + 1.5), 30.0), 4.2))
    ax = fig.add_subplot()
    x = np.arange(n)
    hmi = shown["hmi"].to_numpy(dtype=float)
    ax.bar(
        x,
        hmi,
        width=0.8,
        color=[_VERSION_COLOUR[v] for v in shown["version"]],
        edgecolor="none",
    )
    if {"ci_low", "ci_high"} <= set(shown.columns):
        low = pd.to_numeric(shown["ci_low"]).to_numpy(dtype=float)
        high = pd.to_numeric(shown["ci_high"]).to_numpy(dtype=float)
        has_ci = np.isfinite(low) & np.isfinite(high)
        if has_ci.any():
            ax.errorbar(
                x[has_ci],
                hmi[has_ci],
                yerr=[hmi[has_ci] - low[has_ci], high[has_ci] - hmi[has_ci]],
                fmt="none",
                ecolor="#333333",
                elinewidth=0.7,
                capsize=1.5,
            )
    ax.set_xticks(x)
    ax.set_xticklabels([_text(c) for c in shown["chart_id"]], rotation=90, fontsize=6)
    ax.set_xlim(-0.6, n - 0.4)
    ax.set_ylim(0, 1)
    ax.set_ylabel("HMI (fraction not correct)")
    xlabel = "chart, sorted by HMI"
    if n_hidden:
        xlabel += f" ({n_hidden} chart(s) without answers not shown)"
    ax.set_xlabel(xlabel)
    ax.spines[["top", "right"]].set_visible(False)
    ax.legend(
        handles=[
            Patch(color=NON_MANIPULATED_COLOUR, label="non-manipulated (_1)"),
            Patch(color=MANIPULATED_COLOUR, label="manipulated (_2)"),
        ],
        loc="upper left",
        frameon=False,
        fontsize=8,
    )
    ax.set_title(_text(title) if title else "HMI of each chart, 95% Wilson intervals", fontsize=10)
    return figure_to_svg(fig)


def paired_group_svg(group_table: pd.DataFrame, *, title: str | None = None) -> str:
    """Per group, mean HMI of non-manipulated and manipulated charts joined by a line.

    Takes the output of :func:`analysis.hmi.group_table` (group,
    hmi_non_manipulated, hmi_manipulated; chart_type and manipulation label
    the rows). Groups are ordered by the increase in HMI, largest at the top,
    so the most misleading manipulations read first as in the paper's Figure 4.
    """
    frame = pd.DataFrame(group_table)
    missing = [
        c for c in ("group", "hmi_non_manipulated", "hmi_manipulated") if c not in frame.columns
    ]
    if missing:
        raise ValueError(f"group_table is missing column(s) {missing}")
    plain = pd.to_numeric(frame["hmi_non_manipulated"]).to_numpy(dtype=float)
    manipulated = pd.to_numeric(frame["hmi_manipulated"]).to_numpy(dtype=float)
    keep = np.isfinite(plain) | np.isfinite(manipulated)
    if not keep.any():
        return _placeholder("No group HMI values yet: no included participant has answered.")
    frame = frame.loc[keep].reset_index(drop=True)
    plain, manipulated = plain[keep], manipulated[keep]
    increase = np.where(np.isfinite(manipulated - plain), manipulated - plain, -np.inf)
    # Ascending so the largest increase lands at the top of the y-axis.
    order = np.argsort(increase, kind="mergesort")
    frame, plain, manipulated = frame.iloc[order], plain[order], manipulated[order]

    labels = []
    for record in frame.to_dict("records"):
        parts = [str(record["group"])]
        detail = [
            str(record[c])
            for c in ("chart_type", "manipulation")
            if c in record and pd.notna(record[c])
        ]
        if detail:
            parts.append(": ".join(detail))
        labels.append(_text("  ".join(parts)))

    n = len(frame)
    fig = Figure(figsize=(7.0, max(1.8, 0.32 * n + 1.2)))
    ax = fig.add_subplot()
    y = np.arange(n)
    both = np.isfinite(plain) & np.isfinite(manipulated)
    for yi, a, b in zip(y[both], plain[both], manipulated[both], strict=True):
        ax.plot([a, b], [yi, yi], color="#999999", linewidth=1.5, zorder=1)
    ax.scatter(plain, y, color=NON_MANIPULATED_COLOUR, s=36, zorder=2)
    ax.scatter(manipulated, y, color=MANIPULATED_COLOUR, s=36, zorder=2)
    ax.set_yticks(y)
    ax.set_yticklabels(labels, fontsize=8)
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.7, n - 0.3)
    ax.set_xlabel("mean HMI of the group's charts")
    ax.grid(axis="x", color="#eeeeee", linewidth=0.8)
    ax.set_axisbelow(True)
    ax.spines[["top", "right"]].set_visible(False)
    ax.legend(
        handles=[
            Line2D(
                [],
                [],
                marker="o",
                linestyle="",
                color=NON_MANIPULATED_COLOUR,
                label="non-manipulated",
            ),
            Line2D([], [], marker="o", linestyle="", color=MANIPULATED_COLOUR, label="manipulated"),
        ],
        loc="lower right",
        frameon=False,
        fontsize=8,
    )
    ax.set_title(_text(title) if title else "Mean HMI per manipulation group", fontsize=10)
    return figure_to_svg(fig)
