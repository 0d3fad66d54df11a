"""Server-rendered SVG figures of model results (CHARTOM Figures 3-7)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from analysis.hmi_plots import MANIPULATED_COLOUR, NON_MANIPULATED_COLOUR
from analysis.model_eval.fact import HUMANS
from analysis.model_eval.frames import SCOPES, models_in, prediction_frame
from analysis.svg import figure_to_svg
from analysis.tables import require_columns

if TYPE_CHECKING:
    import pandas as pd

ALL_COLOUR = "#2ca02c"  # the paper's green for "all charts" and fitted lines
_SCOPE_COLOUR = {
    "non-manipulated": NON_MANIPULATED_COLOUR,
    "manipulated": MANIPULATED_COLOUR,
    "all": ALL_COLOUR,
}
PREDICTION_COLOUR = "#d62728"
# The humans' bars keep the scope colours and add a hatch on a grey band, so they
# stand apart from the models' bars in colour and in greyscale print alike.
HUMANS_HATCH = "///"
HUMANS_BAND = "#ececec"


def _text(value) -> str:
    # A pair of "$" in a label would switch matplotlib to mathtext.
    return str(value).replace("$", r"\$")


def _placeholder(message: str) -> str:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6, 1.2))
    fig.text(0.5, 0.5, message, ha="center", va="center", fontsize=11, color="#555555")
    return figure_to_svg(fig)


def _panels(n: int, width: float = 3.2, height: float = 3.2, columns: int = 3):
    from matplotlib.figure import Figure

    cols = min(columns, n)
    rows = math.ceil(n / cols)
    fig = Figure(figsize=(width * cols, height * rows + 0.4))
    axes = [fig.add_subplot(rows, cols, i + 1) for i in range(n)]
    return fig, axes


def _humans_first(models: list, humans: str | None) -> tuple[list, bool]:
    if humans is not None and humans in models:
        return [humans, *[m for m in models if m != humans]], True
    return models, False


def fact_error_svg(
    overall: pd.DataFrame, *, title: str | None = None, humans: str | None = HUMANS
) -> str:
    """Grouped bars of FACT error rate per model and scope, with Wilson intervals (Figure 3).

    Takes ``FactErrorRates.overall``, optionally concatenated with
    :func:`human_fact_rates`' overall frame. The rows whose model is
    ``humans`` are drawn first, hatched on a shaded band and labelled in bold,
    as the paper puts the human bars beside the models'; their bars carry the
    SVG ids ``humans-<scope>``.
    """
    import pandas as pd
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    frame = pd.DataFrame(overall)
    require_columns(frame, ("model", "scope", "error_rate", "ci_low", "ci_high"), "overall")
    models, with_humans = _humans_first(models_in(frame), humans)
    if not models or frame["error_rate"].notna().sum() == 0:
        return _placeholder("No FACT answers yet.")
    fig = Figure(figsize=(max(5.0, 1.3 * len(models) + 2), 4.0))
    ax = fig.add_subplot()
    width = 0.26
    x = np.arange(len(models))
    if with_humans:
        ax.axvspan(-0.5, 0.5, color=HUMANS_BAND, zorder=0)
    for i, scope in enumerate(SCOPES):
        part = frame[frame["scope"] == scope].set_index("model").reindex(models)
        rate = part["error_rate"].to_numpy(float)
        low, high = part["ci_low"].to_numpy(float), part["ci_high"].to_numpy(float)
        pos = x + (i - 1) * width
        bars = ax.bar(
            pos, np.nan_to_num(rate), width=width, color=_SCOPE_COLOUR[scope], label=scope
        )
        if with_humans:
            bars[0].set_hatch(HUMANS_HATCH)
            bars[0].set_edgecolor("#222222")
            bars[0].set_gid(f"humans-{scope}")
        ok = np.isfinite(rate) & np.isfinite(low) & np.isfinite(high)
        if ok.any():
            ax.errorbar(
                pos[ok],
                rate[ok],
                yerr=[rate[ok] - low[ok], high[ok] - rate[ok]],
                fmt="none",
                ecolor="#333333",
                elinewidth=0.8,
                capsize=2,
            )
    ax.set_xticks(x)
    ax.set_xticklabels(
        [_text(m) for m in models],
        rotation=30 if len(models) > 4 else 0,
        ha="right" if len(models) > 4 else "center",
    )
    if with_humans:
        ax.get_xticklabels()[0].set_fontweight("bold")
        ax.axvline(0.5, color="#999999", linewidth=0.8, linestyle=":")
    ax.set_xlim(-0.5, len(models) - 0.5)
    ax.set_ylim(0, 1)
    ax.set_ylabel("FACT error rate")
    ax.spines[["top", "right"]].set_visible(False)
    handles = [Patch(color=_SCOPE_COLOUR[s], label=s) for s in SCOPES]
    if with_humans:
        handles.append(
            Patch(
                facecolor="white",
                edgecolor="#222222",
                hatch=HUMANS_HATCH,
                label=f"{_text(humans)} (study participants)",
            )
        )
    ax.legend(
        handles=handles, frameon=False, fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0)
    )
    ax.set_title(_text(title) if title else "FACT error rate, 95% Wilson intervals", fontsize=10)
    return figure_to_svg(fig)


def fact_group_svg(
    by_group: pd.DataFrame, *, title: str | None = None, humans: str | None = HUMANS
) -> str:
    """Heat map of FACT error rate per group (rows) and model x version (columns): Figure 6.

    The ``humans`` columns, when present, come first, in bold, set off from
    the models by a line.
    """
    import pandas as pd
    from matplotlib.figure import Figure

    frame = pd.DataFrame(by_group)
    require_columns(frame, ("model", "group", "scope", "error_rate"), "by_group")
    models, with_humans = _humans_first(models_in(frame), humans)
    groups = list(dict.fromkeys(frame["group"]))
    if not models or not groups:
        return _placeholder("No FACT answers yet.")
    columns = [(m, s) for m in models for s in SCOPES[:2]]
    indexed = frame.set_index(["group", "model", "scope"])["error_rate"]
    grid = np.array(
        [[indexed.get((g, m, s), np.nan) for m, s in columns] for g in groups], dtype=float
    )
    fig = Figure(
        figsize=(max(4.0, 0.6 * len(columns) + 3.0), max(2.0, 0.34 * len(groups) + 2.2)),
        layout="constrained",
    )
    ax = fig.add_subplot()
    image = ax.imshow(np.ma.masked_invalid(grid), cmap="Reds", vmin=0, vmax=1, aspect="auto")
    for (r, c), value in np.ndenumerate(grid):
        label = "-" if not np.isfinite(value) else f"{value:.2f}"
        colour = "white" if np.isfinite(value) and value > 0.6 else "#222222"
        ax.text(c, r, label, ha="center", va="center", fontsize=7, color=colour)
    ax.set_xticks(range(len(columns)))
    # One line per column, turned 45 degrees and anchored at its tick: long model names then
    # run past each other instead of into each other, whatever their length.
    ax.set_xticklabels(
        [f"{_text(m)} · {'plain' if s == 'non-manipulated' else 'manip.'}" for m, s in columns],
        fontsize=8,
        rotation=45,
        ha="right",
        rotation_mode="anchor",
    )
    if with_humans:
        for tick in ax.get_xticklabels()[:2]:
            tick.set_fontweight("bold")
        ax.axvline(1.5, color="#222222", linewidth=2.0, gid="humans-separator")
    labels = {}
    if "manipulation" in frame:
        labels = dict(zip(frame["group"], frame["manipulation"], strict=False))
    ax.set_yticks(range(len(groups)))
    ax.set_yticklabels(
        [_text(f"{g}  {labels[g]}" if labels.get(g) else g) for g in groups], fontsize=8
    )
    fig.colorbar(image, ax=ax, fraction=0.04, pad=0.02, label="error rate")
    ax.set_title(_text(title) if title else "FACT error rate per group", fontsize=10)
    return figure_to_svg(fig)


def mind_scatter_svg(
    predictions: pd.DataFrame,
    hmi: pd.DataFrame,
    *,
    metrics: pd.DataFrame | None = None,
    charts: pd.DataFrame | None = None,
    title: str | None = None,
) -> str:
    """Predicted vs measured HMI, one panel per model (Figure 5).

    The dashed diagonal is a perfect prediction, the green line the least
    squares fit and the corner number Pearson's r, all from ``metrics``
    (:func:`mind_metrics`) when given. With ``charts`` (chart_id, version)
    points are coloured by version as in Figure 2.
    """
    import pandas as pd

    joined = prediction_frame(predictions, hmi)
    models = models_in(joined)
    usable = joined[joined["usable"]]
    if usable.empty:
        return _placeholder("No MIND predictions with an HMI yet.")
    if charts is not None:
        versions = pd.DataFrame(charts).set_index("chart_id")["version"]
        usable = usable.assign(version=usable["chart_id"].map(versions))
    stats = pd.DataFrame(metrics).set_index("model") if metrics is not None else None
    fig, axes = _panels(len(models))
    for ax, model in zip(axes, models, strict=True):
        mine = usable[usable["model"] == model]
        if "version" in mine:
            colours = [
                MANIPULATED_COLOUR if v == 2 else NON_MANIPULATED_COLOUR for v in mine["version"]
            ]
        else:
            colours = "#444444"
        ax.scatter(mine["hmi"], mine["prediction"], s=14, c=colours, alpha=0.8, linewidths=0)
        ax.plot([0, 1], [0, 1], linestyle="--", color="#999999", linewidth=0.8)
        if stats is not None and model in stats.index:
            row = stats.loc[model]
            if np.isfinite(row["slope"]) and np.isfinite(row["intercept"]):
                ax.plot(
                    [0, 1], [row["intercept"], row["intercept"] + row["slope"]], color=ALL_COLOUR
                )
            note = f"r = {row['pearson_r']:.2f}" if np.isfinite(row["pearson_r"]) else "r undefined"
            if np.isfinite(row["mae"]):
                note += f"\nMAE = {row['mae']:.2f}"
            ax.text(0.97, 0.03, note, transform=ax.transAxes, ha="right", va="bottom", fontsize=8)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.set_aspect("equal")
        ax.set_title(f"{_text(model)} (n = {len(mine)})", fontsize=9)
        ax.set_xlabel("HMI (humans)", fontsize=8)
        ax.set_ylabel("predicted", fontsize=8)
        ax.tick_params(labelsize=7)
    fig.suptitle(_text(title) if title else "MIND: predicted vs measured HMI", fontsize=10)
    return figure_to_svg(fig)


_ARROW_COLUMNS = (
    "hmi_non_manipulated",
    "hmi_manipulated",
    "predicted_non_manipulated",
    "predicted_manipulated",
)


def _draw_model_arrows(ax, rows: pd.DataFrame, model: str, colour: str) -> None:
    """One model's panel: each group's arrow from the humans' HMI pair to the prediction."""
    for row in rows.to_dict("records"):
        x0, y0 = row["hmi_non_manipulated"], row["hmi_manipulated"]
        x1, y1 = row["predicted_non_manipulated"], row["predicted_manipulated"]
        ax.annotate(
            "",
            xy=(x1, y1),
            xytext=(x0, y0),
            arrowprops={"arrowstyle": "->", "color": colour, "lw": 0.9},
        )
        ax.scatter([x0], [y0], color="black", s=14, zorder=3)
        ax.scatter([x1], [y1], color=colour, s=14, zorder=3)
        ax.annotate(
            _text(row["group"]),
            (x0, y0),
            textcoords="offset points",
            xytext=(3, 3),
            fontsize=6,
        )
    ax.plot([0, 1], [0, 1], linestyle=":", color="#bbbbbb", linewidth=0.8)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_aspect("equal")
    ax.set_title(_text(model), fontsize=9)
    ax.set_xlabel("HMI non-manipulated", fontsize=8)
    ax.set_ylabel("HMI manipulated", fontsize=8)
    ax.tick_params(labelsize=7)


def mind_arrows_svg(arrows: pd.DataFrame, *, title: str | None = None) -> str:
    """Per model, an arrow per group from the measured to the predicted HMI pair (Figure 7).

    x is the mean HMI of the group's non-manipulated charts, y that of its
    manipulated charts; the black dot is the humans' value and the arrow ends
    at the model's prediction. Takes :func:`mind_group_arrows`.
    """
    import pandas as pd
    from matplotlib.lines import Line2D

    frame = pd.DataFrame(arrows)
    require_columns(frame, ("model", "group", *_ARROW_COLUMNS), "arrows")
    values = frame[list(_ARROW_COLUMNS)].to_numpy(float)
    complete = np.isfinite(values).all(axis=1)
    if not complete.any():
        return _placeholder("No group has MIND predictions for both versions yet.")
    models = models_in(frame)
    fig, axes = _panels(len(models))
    colour = PREDICTION_COLOUR
    for ax, model in zip(axes, models, strict=True):
        _draw_model_arrows(
            ax, frame[(frame["model"] == model).to_numpy() & complete], model, colour
        )
    fig.legend(
        handles=[
            Line2D([], [], marker="o", linestyle="", color="black", label="humans (measured)"),
            Line2D(
                [],
                [],
                marker="o",
                linestyle="",
                color=colour,
                label="model's prediction",
            ),
        ],
        loc="lower center",
        ncol=2,
        frameon=False,
        fontsize=8,
        bbox_to_anchor=(0.5, -0.02),
    )
    fig.suptitle(
        _text(title) if title else "MIND per group: measured HMI -> predicted", fontsize=10
    )
    return figure_to_svg(fig)


def log_odds_comparison_svg(
    human_log_odds: pd.DataFrame,
    model_log_odds: pd.DataFrame,
    *,
    estimator: str | None = None,
    title: str | None = None,
) -> str:
    """Log odds ratio per group for humans and models side by side (Figure 4).

    Groups are ordered by the humans' log odds ratio, most misleading at the
    top; a group missing on one side shows only the other marker.
    """
    import pandas as pd
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    from analysis.log_odds import MIXED_ESTIMATOR

    estimator = estimator or MIXED_ESTIMATOR
    sides, labels = [], {}
    for frame in (human_log_odds, model_log_odds):
        frame = pd.DataFrame(frame)
        require_columns(frame, ("group", "log_odds_ratio"), "log odds")
        if "estimator" in frame:
            frame = frame[frame["estimator"] == estimator]
        sides.append(frame.set_index("group")["log_odds_ratio"].astype(float))
        if "manipulation" in frame:
            for group, name in zip(frame["group"], frame["manipulation"], strict=True):
                if isinstance(name, str) and name:
                    labels.setdefault(group, name)
    human, model = sides
    groups = list(dict.fromkeys([*human.index, *model.index]))
    if not groups or not (np.isfinite(human).any() or np.isfinite(model).any()):
        return _placeholder("No log odds ratios to compare yet.")

    def rank(group):
        value = float(human.get(group, np.nan))
        return (0, -value) if np.isfinite(value) else (1, 0.0)

    # barh draws bottom-up, so reversing puts the most misleading group on top.
    order = sorted(groups, key=rank)[::-1]
    y = np.arange(len(order))
    fig = Figure(figsize=(7.0, max(2.0, 0.32 * len(order) + 1.2)))
    ax = fig.add_subplot()
    h = np.array([human.get(g, np.nan) for g in order], dtype=float)
    m = np.array([model.get(g, np.nan) for g in order], dtype=float)
    ax.barh(y + 0.2, np.nan_to_num(h), height=0.38, color=NON_MANIPULATED_COLOUR, label="humans")
    ax.barh(y - 0.2, np.nan_to_num(m), height=0.38, color=MANIPULATED_COLOUR, label="models")
    for yi, (a, b) in enumerate(zip(h, m, strict=True)):
        if not np.isfinite(a):
            ax.text(0, yi + 0.2, " n/a", va="center", fontsize=6, color="#777777")
        if not np.isfinite(b):
            ax.text(0, yi - 0.2, " n/a", va="center", fontsize=6, color="#777777")
    ax.axvline(0, color="#666666", linewidth=0.7)
    ax.set_yticks(y)
    ax.set_yticklabels(
        [_text(f"{g}  {labels[g]}" if g in labels else g) for g in order], fontsize=8
    )
    ax.set_xlabel("log odds ratio of an error, manipulated vs non-manipulated")
    ax.spines[["top", "right"]].set_visible(False)
    ax.legend(
        handles=[
            Patch(color=NON_MANIPULATED_COLOUR, label="humans"),
            Patch(color=MANIPULATED_COLOUR, label="models"),
        ],
        frameon=False,
        fontsize=8,
        loc="lower right",
    )
    ax.set_title(_text(title) if title else "Log odds ratio per manipulation group", fontsize=10)
    return figure_to_svg(fig)
