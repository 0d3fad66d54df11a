"""The model analyses' tables as the page, the API and the export read them: columns, labels,
how each column is shown (text left, numbers right) and rows of JSON-safe values."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

LABELS = {
    "n": "n",
    "n_errors": "errors",
    "ci_low": "CI low",
    "ci_high": "CI high",
    "mae": "MAE",
    "mae_sd": "MAE SD",
    "pearson_r": "Pearson r",
    "pearson_p": "p (r)",
    "r_squared": "R²",
    "p_n": "p non-manip.",
    "p_m": "p manip.",
    "log_odds_ratio": "log OR",
    "se": "SE",
    "share_named": "share named",
    "false_alarm_rate": "false alarms",
    "hmi_r": "r with HMI",
    "hmi_p": "p (HMI)",
    "p_value": "p",
    "dof": "df",
    "chi2": "χ²",
    "yates_correction": "Yates correction",
}

# Columns that hold p-values ("p_n" and "p_m" are proportions, not p-values).
P_VALUE_COLUMNS = {"p_value", "pearson_p", "hmi_p"}
COUNT_COLUMNS = {"n", "n_errors", "dof", "n_groups", "n_charts", "n_models", "answered", "total"}


def column_kind(name: str, values: list) -> str:
    """How a column is shown: "text" (left), "flag" (yes/no), "int", "p" or "num" (right)."""
    present = [v for v in values if v is not None]
    if any(isinstance(v, str) for v in present):
        return "text"
    if present and all(isinstance(v, bool | np.bool_) for v in present):
        return "flag"
    if name in P_VALUE_COLUMNS:
        return "p"
    if name in COUNT_COLUMNS or (present and all(isinstance(v, int) for v in present)):
        return "int"
    return "num"


def clean(value, digits: int | None = 4):
    """JSON-safe: NaN and infinities become None, numpy scalars plain; floats rounded to ``digits``.

    ``digits=None`` keeps full precision (the file export, where p-values of
    1e-8 must not read as 0).
    """
    import pandas as pd

    if isinstance(value, float | np.floating):
        value = float(value)
        if math.isnan(value) or math.isinf(value):
            return None
        if digits is None:
            return value
        if value != 0 and abs(value) < 10**-digits:
            # Tiny numbers (p-values of 1e-70) keep their significant digits, not 0.0.
            return float(f"{value:.{digits - 1}e}")
        return round(value, digits)
    if isinstance(value, np.integer | np.bool_):
        return value.item()
    if isinstance(value, list | tuple):
        return [clean(v, digits) for v in value]
    if value is pd.NA or value is pd.NaT:
        return None
    return value


def table(frame: pd.DataFrame, columns: list[str] | None = None, digits: int | None = 4) -> dict:
    """A frame as {columns, labels, rows} for templates and JSON, NaN as None."""
    columns = [c for c in (columns or list(frame.columns)) if c in frame.columns]
    rows = [[clean(v, digits) for v in record] for record in frame[columns].itertuples(index=False)]
    return {
        "columns": columns,
        "labels": [LABELS.get(c, c.replace("_", " ")) for c in columns],
        "kinds": [column_kind(c, [row[i] for row in rows]) for i, c in enumerate(columns)],
        "rows": rows,
    }
