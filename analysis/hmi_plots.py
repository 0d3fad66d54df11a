"""Server-rendered SVG figures of HMI results (CHARTOM Figure 2 and a per-group view)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from analysis.svg import figure_to_svg
from analysis.tables import require_columns

if TYPE_CHECKING:
    import pandas as pd

# The paper's Figure 2 colours: blue for non-manipulated, orange for manipulated.
NON_MANIPULATED_COLOUR = "#1f77b4"
MANIPULATED_COLOUR = "#ff7f0e"
_VERSION_COLOUR = {1: NON_MANIPULATED_COLOUR, 2: MANIPULATED_COLOUR}


def _text(value) -> str:
    # A pair of "$" in a label would switch matplotlib to mathtext.
    return str(value).replace("$", r"\$")


def _placeholder(message: str) -> str:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6, 1.2))
    fig.text(0.5, 0.5, message, ha="center", va="center", fontsize=11, color="#555555")
    return figure_to_svg(fig)


def sorted_hmi_svg(hmi_frame: pd.DataFrame, *, title: str | None = None) -> str:
    """All charts sorted by HMI, coloured by version, with Wilson interval bars.

    Mirrors Figure 2 of the CHARTOM paper. Needs chart_id, hmi and version
    (1 non-manipulated, 2 manipulated); ci_low and ci_high are drawn when
    present. Charts without an HMI are left out and counted in a footnote.
    """
    import pandas as pd
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

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

    # Horizontal bars, largest HMI at the top: every chart id reads level at a normal size,
    # however many charts there are (vertical bars needed tiny 90-degree labels). The
    # ascending sort puts the first row at the bottom of the y-axis.
    n = len(shown)
    fig = Figure(figsize=(10.0, max(2.4, 0.24 * n + 1.3)), layout="constrained")
    ax = fig.add_subplot()
    y = np.arange(n)
    hmi = shown["hmi"].to_numpy(dtype=float)
    bars = ax.barh(
        y, hmi, height=0.75, color=[_VERSION_COLOUR[v] for v in shown["version"]], edgecolor="none"
    )
    low = high = np.full(n, np.nan)
    if {"ci_low", "ci_high"} <= set(shown.columns):
        low = pd.to_numeric(shown["ci_low"]).to_numpy(dtype=float)
        high = pd.to_numeric(shown["ci_high"]).to_numpy(dtype=float)
        has_ci = np.isfinite(low) & np.isfinite(high)
        if has_ci.any():
            ax.errorbar(
                hmi[has_ci],
                y[has_ci],
                xerr=[hmi[has_ci] - low[has_ci], high[has_ci] - hmi[has_ci]],
                fmt="none",
                ecolor="#333333",
                elinewidth=0.8,
                capsize=2,
            )
    titles = {}
    for i, (bar, record) in enumerate(zip(bars, shown.to_dict("records"), strict=True)):
        bar.set_gid(f"hmi-sorted-{i}")
        titles[f"hmi-sorted-{i}"] = _bar_title(record, low[i], high[i])
    ax.set_yticks(y)
    ax.set_yticklabels([_text(c) for c in shown["chart_id"]], fontsize=9)
    ax.set_ylim(-0.6, n - 0.4)
    ax.set_xlim(0, 1)
    ax.set_xlabel("HMI (fraction not correct)")
    ylabel = "chart, sorted by HMI"
    if n_hidden:
        ylabel += f" ({n_hidden} chart(s) without answers not shown)"
    ax.set_ylabel(ylabel)
    ax.grid(axis="x", color="#eeeeee", linewidth=0.8)
    ax.set_axisbelow(True)
    ax.spines[["top", "right"]].set_visible(False)
    _legend_above(
        fig,
        [
            Patch(color=NON_MANIPULATED_COLOUR, label="non-manipulated (_1)"),
            Patch(color=MANIPULATED_COLOUR, label="manipulated (_2)"),
        ],
    )
    ax.set_title(_text(title) if title else "HMI of each chart, 95% Wilson intervals", fontsize=10)
    return figure_to_svg(fig, titles=titles)


def _legend_above(fig, handles) -> None:
    # Outside the axes, above them: a legend inside the data area covers marks (G8 once).
    fig.legend(handles=handles, loc="outside upper center", ncols=len(handles), frameon=False)


def _number(value) -> str:
    return "n/a" if value is None or not np.isfinite(value) else f"{value:.2f}"


def _bar_title(record: dict, low: float, high: float) -> str:
    import pandas as pd

    version = "manipulated" if record["version"] == 2 else "non-manipulated"
    text = f"{record['chart_id']} ({version}): HMI {_number(record['hmi'])}"
    if np.isfinite(low) and np.isfinite(high):
        text += f", 95% CI {low:.2f} to {high:.2f}"
    if record.get("n") is not None and pd.notna(record.get("n")):
        text += f", n = {int(record['n'])}"
    return text


def paired_group_svg(group_table: pd.DataFrame, *, title: str | None = None) -> str:
    """Per group, mean HMI of non-manipulated and manipulated charts joined by a line.

    Takes the output of :func:`analysis.hmi.group_table` (group,
    hmi_non_manipulated, hmi_manipulated; chart_type and manipulation label
    the rows). Groups are ordered by the increase in HMI, largest at the top,
    so the most misleading manipulations read first as in the paper's Figure 4.
    """
    import pandas as pd
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    frame = pd.DataFrame(group_table)
    require_columns(frame, ("group", "hmi_non_manipulated", "hmi_manipulated"), "group_table")
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
    fig = Figure(figsize=(10.0, max(2.2, 0.36 * n + 1.4)), layout="constrained")
    ax = fig.add_subplot()
    y = np.arange(n)
    titles = {}
    for i, (record, a, b) in enumerate(
        zip(frame.to_dict("records"), plain, manipulated, strict=True)
    ):
        if np.isfinite(a) and np.isfinite(b):
            ax.plot([a, b], [i, i], color="#999999", linewidth=1.5, zorder=1)
        # One artist per dot, each with its own id, so each gets its own hover value.
        for value, colour, kind in (
            (a, NON_MANIPULATED_COLOUR, "non-manipulated"),
            (b, MANIPULATED_COLOUR, "manipulated"),
        ):
            if not np.isfinite(value):
                continue
            gid = f"hmi-paired-{i}-{kind}"
            dot = ax.scatter([value], [i], color=colour, s=40, zorder=2)
            dot.set_gid(gid)
            titles[gid] = f"{record['group']} {kind}: mean HMI {value:.2f}"
    ax.set_yticks(y)
    ax.set_yticklabels(labels, fontsize=9)
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.7, n - 0.3)
    ax.set_xlabel("mean HMI of the group's charts")
    ax.grid(axis="x", color="#eeeeee", linewidth=0.8)
    ax.set_axisbelow(True)
    ax.spines[["top", "right"]].set_visible(False)
    _legend_above(
        fig,
        [
            Line2D(
                [], [], marker="o", linestyle="", color=NON_MANIPULATED_COLOUR,
                label="non-manipulated",
            ),
            Line2D([], [], marker="o", linestyle="", color=MANIPULATED_COLOUR, label="manipulated"),
        ],
    )  # fmt: skip
    ax.set_title(_text(title) if title else "Mean HMI per manipulation group", fontsize=10)
    return figure_to_svg(fig, titles=titles)
