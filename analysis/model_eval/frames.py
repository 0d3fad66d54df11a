"""Input checks and joins shared by the model-evaluation analyses.

Input frames
------------
answers
    One row per model x chart it was asked: model, chart_id, correct (True /
    False / missing). Missing means the model gave no FACT answer; it counts
    against coverage and is left out of every rate, so metrics are over what
    was answered. An answer that was given but could not be read is False.
predictions
    model, chart_id, prediction (a float in [0, 1] or missing).
charts
    chart_id, group, version (1 non-manipulated, 2 manipulated), manipulation;
    question is optional (derived from the chart id "G1_Q2_2" -> "G1_Q2").
hmi
    chart_id, hmi (as :func:`analysis.hmi.chart_hmi` returns); a chart missing
    here or with a NaN HMI has no HMI yet and is left out of MIND metrics.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

# The participants' validators, so a model's answers are held to the same rules
# (True / False / missing, versions 1 and 2, natural order).
from analysis.tables import is_correct, natural_sorted, require_columns, version_numbers

if TYPE_CHECKING:
    import pandas as pd

SCOPES = ("non-manipulated", "manipulated", "all")


def chart_frame(charts: pd.DataFrame) -> pd.DataFrame:
    """Charts with version as int, a question column and manipulation present."""
    import pandas as pd

    charts = pd.DataFrame(charts).copy()
    require_columns(charts, ("chart_id", "group", "version"), "charts")
    if charts["chart_id"].duplicated().any():
        raise ValueError("charts has duplicate chart_id values")
    charts["version"] = version_numbers(charts["version"])
    if "question" not in charts:
        # The paper's ids put the pair's question before the version suffix.
        charts["question"] = [re.sub(r"_[12]$", "", str(c)) for c in charts["chart_id"]]
    if "manipulation" not in charts:
        charts["manipulation"] = None
    charts["group"] = charts["group"].astype(str)
    return charts


def _check_keys(frame: pd.DataFrame, charts: pd.DataFrame | None, name: str) -> None:
    if frame.duplicated(["model", "chart_id"]).any():
        dup = frame.loc[frame.duplicated(["model", "chart_id"]), ["model", "chart_id"]]
        first = dup.iloc[0]
        raise ValueError(
            f"{name} has more than one row for model {first['model']!r} and chart "
            f"{first['chart_id']!r}; each model answers each chart at most once"
        )
    if charts is None:
        return
    unknown = set(frame["chart_id"]) - set(charts["chart_id"])
    if unknown:
        raise ValueError(f"{name} refer to unknown chart(s) {natural_sorted(unknown)[:5]}")


def answer_frame(answers: pd.DataFrame, charts: pd.DataFrame) -> pd.DataFrame:
    """Answers joined to the charts, with ``answered`` and ``error`` (NaN when unanswered)."""
    import pandas as pd

    answers = pd.DataFrame(answers)
    require_columns(answers, ("model", "chart_id", "correct"), "answers")
    answers = answers.assign(model=answers["model"].astype(str))
    _check_keys(answers, charts, "answers")
    answered = answers["correct"].astype(object).notna().to_numpy()
    error = np.where(answered, (~is_correct(answers["correct"])).astype(float), np.nan)
    out = pd.DataFrame(
        {
            "model": answers["model"].to_numpy(),
            "chart_id": answers["chart_id"].to_numpy(),
            "correct": answers["correct"].to_numpy(),
            "answered": answered,
            "error": error,
        }
    )
    meta = charts[["chart_id", "group", "question", "version", "manipulation"]]
    return out.merge(meta, on="chart_id", how="left", validate="many_to_one")


def prediction_frame(predictions: pd.DataFrame, hmi: pd.DataFrame) -> pd.DataFrame:
    """Predictions joined to HMI; rows without both a prediction and an HMI are kept, flagged."""
    import pandas as pd

    predictions = pd.DataFrame(predictions)
    hmi = pd.DataFrame(hmi)
    require_columns(predictions, ("model", "chart_id", "prediction"), "predictions")
    require_columns(hmi, ("chart_id", "hmi"), "hmi")
    if hmi["chart_id"].duplicated().any():
        raise ValueError("hmi has duplicate chart_id values")
    predictions = predictions.assign(model=predictions["model"].astype(str))
    # A chart absent from hmi is one nobody answered yet: it counts as "no HMI"
    # rather than an error, so only duplicates are checked here.
    _check_keys(predictions, None, "predictions")
    predicted = pd.to_numeric(predictions["prediction"], errors="coerce").astype(float)
    given = predicted.dropna()
    if ((given < 0) | (given > 1)).any():
        raise ValueError("predictions must lie in [0, 1] (read them with extract_probability)")
    out = pd.DataFrame(
        {
            "model": predictions["model"].to_numpy(),
            "chart_id": predictions["chart_id"].to_numpy(),
            "prediction": predicted.to_numpy(),
        }
    )
    truth = hmi[["chart_id"]].assign(hmi=pd.to_numeric(hmi["hmi"], errors="coerce").astype(float))
    out = out.merge(truth, on="chart_id", how="left", validate="many_to_one")
    out["usable"] = out["prediction"].notna() & out["hmi"].notna()
    return out


def group_manipulations(charts: pd.DataFrame) -> dict:
    """Group -> the manipulation label(s) of its manipulated charts."""
    out = {}
    for group, part in charts[charts["version"] == 2].groupby("group", sort=False):
        names = [str(v) for v in dict.fromkeys(part["manipulation"].dropna()) if str(v)]
        out[group] = " / ".join(names) if names else None
    return out


def models_in(frame: pd.DataFrame) -> list[str]:
    return list(dict.fromkeys(frame["model"]))
