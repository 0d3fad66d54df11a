"""MIND metrics: how well models predict HMI (CHARTOM Table 2, Figures 5 and 7)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from analysis.model_eval.frames import chart_frame, models_in, prediction_frame
from analysis.tables import natural_sorted

if TYPE_CHECKING:
    import pandas as pd

MIN_PREDICTIONS = 3

METRIC_COLUMNS = [
    "model",
    "n",
    "n_without_prediction",
    "n_without_hmi",
    "mae",
    "mae_sd",
    "pearson_r",
    "pearson_p",
    "slope",
    "intercept",
    "r_squared",
    "message",
]

ARROW_COLUMNS = [
    "model",
    "group",
    "manipulation",
    "n_non_manipulated",
    "hmi_non_manipulated",
    "predicted_non_manipulated",
    "n_manipulated",
    "hmi_manipulated",
    "predicted_manipulated",
]


def _metrics(predicted: np.ndarray, truth: np.ndarray) -> dict:
    from scipy import stats

    n = len(predicted)
    out = dict.fromkeys(
        ("mae", "mae_sd", "pearson_r", "pearson_p", "slope", "intercept", "r_squared"), np.nan
    )
    if n < MIN_PREDICTIONS:
        out["message"] = (
            f"needs at least {MIN_PREDICTIONS} charts with both a prediction and an HMI; has {n}"
        )
        return out
    errors = np.abs(predicted - truth)
    out["mae"] = float(errors.mean())
    out["mae_sd"] = float(errors.std(ddof=1))
    notes = []
    if np.ptp(truth) == 0:
        notes.append("all HMI values are equal, so the correlation and the fit are undefined")
    else:
        slope = float(np.cov(truth, predicted, ddof=1)[0, 1] / np.var(truth, ddof=1))
        out["slope"] = slope
        out["intercept"] = float(predicted.mean() - slope * truth.mean())
        if np.ptp(predicted) == 0:
            notes.append("the predictions are all equal, so Pearson's r is undefined")
        else:
            result = stats.pearsonr(truth, predicted)
            out["pearson_r"] = float(result.statistic)
            out["pearson_p"] = float(result.pvalue)
            out["r_squared"] = float(result.statistic) ** 2
    out["message"] = "; ".join(notes) or None
    return out


def mind_metrics(predictions: pd.DataFrame, hmi: pd.DataFrame) -> pd.DataFrame:
    """Per model, the error and the agreement of predicted HMI with the measured HMI.

    Over the n charts with both a prediction m_i and an HMI a_i:

        MAE    = (1/n) sum |m_i - a_i|                   (CHARTOM section 5, Table 2)
        mae_sd = sample SD (ddof = 1) of |m_i - a_i|     (Table 2's sigma)
        r      = Pearson correlation of a and m, with its two-sided p-value
                 (scipy.stats.pearsonr; Figure 5's corner number)
        m ~ slope * a + intercept by least squares, r_squared = r^2 (Figure 5's line)

    Charts without a prediction (the model did not answer, or its number could
    not be read) and charts without an HMI (no included participant) are left
    out and counted. With fewer than 3 usable charts every statistic is NaN and
    ``message`` says so; constant HMI or constant predictions leave the
    undefined statistics NaN with a message.
    """
    import pandas as pd

    joined = prediction_frame(predictions, hmi)
    rows = []
    for model in models_in(joined):
        mine = joined[joined["model"] == model]
        usable = mine[mine["usable"]]
        rows.append(
            {
                "model": model,
                "n": len(usable),
                "n_without_prediction": int(mine["prediction"].isna().sum()),
                "n_without_hmi": int((mine["prediction"].notna() & mine["hmi"].isna()).sum()),
                **_metrics(usable["prediction"].to_numpy(float), usable["hmi"].to_numpy(float)),
            }
        )
    return pd.DataFrame(rows, columns=METRIC_COLUMNS)


def mind_group_arrows(
    predictions: pd.DataFrame, hmi: pd.DataFrame, charts: pd.DataFrame
) -> pd.DataFrame:
    """Per model and group, mean HMI and mean prediction for each version (Figure 7).

        hmi_<version>       = mean of a_i over the group's charts of that version
        predicted_<version> = mean of m_i over the same charts

    Both means run over the charts with a prediction and an HMI, so an arrow
    from (hmi_non_manipulated, hmi_manipulated) to (predicted_non_manipulated,
    predicted_manipulated) compares the same charts. A version with no such
    chart has n 0 and NaN means.
    """
    import pandas as pd

    charts = chart_frame(charts)
    joined = prediction_frame(predictions, hmi)
    unknown = set(joined["chart_id"]) - set(charts["chart_id"])
    if unknown:
        raise ValueError(
            f"predictions refer to chart(s) not in charts {natural_sorted(unknown)[:5]}"
        )
    joined = joined.merge(charts[["chart_id", "group", "version"]], on="chart_id", how="left")
    usable = joined[joined["usable"]]
    manipulated = charts[charts["version"] == 2]
    names = {
        group: " / ".join(str(v) for v in dict.fromkeys(part["manipulation"].dropna())) or None
        for group, part in manipulated.groupby("group", sort=False)
    }
    rows = []
    for model in models_in(joined):
        mine = usable[usable["model"] == model]
        for group in natural_sorted(charts["group"].unique()):
            row = {"model": model, "group": group, "manipulation": names.get(group)}
            for version, suffix in ((1, "non_manipulated"), (2, "manipulated")):
                part = mine[(mine["group"] == group) & (mine["version"] == version)]
                row[f"n_{suffix}"] = len(part)
                row[f"hmi_{suffix}"] = part["hmi"].mean() if len(part) else np.nan
                row[f"predicted_{suffix}"] = part["prediction"].mean() if len(part) else np.nan
            rows.append(row)
    return pd.DataFrame(rows, columns=ARROW_COLUMNS)
