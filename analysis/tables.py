"""Input checks and orderings shared by the CHARTOM analyses (HMI, log odds, models).

One set of rules for every frame of answers, so participants and models are
held to the same ones:

* ``correct`` is True, False or missing; missing (unanswered) counts as not
  correct, as the CHARTOM paper's HMI does (section 4.2).
* ``version`` is 1 (non-manipulated) or 2 (manipulated), the paper's chart id
  suffixes ``_1`` and ``_2`` (section 3.1).
* Groups and chart ids are listed in natural order ("G2" before "G10"), as in
  the paper's tables.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

_TRIAL_META_COLUMNS = ("participant", "chart_id", "correct", "group", "question", "version")


def natural_key(value) -> tuple:
    """Sort key that orders digit runs by value: "G2" before "G10"."""
    parts = re.split(r"(\d+)", str(value))
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in parts if p != "")


def natural_sorted(values) -> list:
    return sorted(values, key=natural_key)


def require_columns(frame: pd.DataFrame, columns, name: str) -> None:
    """Raise ValueError naming the columns ``frame`` (called ``name``) lacks."""
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{name} is missing column(s) {missing}")


def is_correct(correct: pd.Series) -> np.ndarray:
    """True where the answer is correct; unanswered (missing) counts as not correct."""
    import pandas as pd

    values = pd.Series(correct).astype(object)
    answered = values.notna()
    given = values[answered]
    # 1 == True and 0 == False, so 0/1 codings pass; anything else is a data bug
    # that must not silently become "wrong".
    invalid = ~given.isin([True, False])
    if invalid.any():
        examples = list(dict.fromkeys(given[invalid].tolist()))[:3]
        raise ValueError(f"correct must be True, False or missing; got {examples}")
    out = np.zeros(len(values), dtype=bool)
    out[answered.to_numpy()] = given.eq(True).to_numpy(dtype=bool)
    return out


def version_numbers(version: pd.Series) -> np.ndarray:
    """Chart versions as ints; anything but 1 or 2 raises ValueError."""
    import pandas as pd

    numeric = pd.to_numeric(pd.Series(version), errors="coerce")
    if not numeric.isin([1, 2]).all():
        raise ValueError("version must be 1 (non-manipulated) or 2 (manipulated)")
    return numeric.to_numpy(dtype=int)


def join_unique(values: pd.Series) -> str | None:
    """Distinct non-empty values in first-seen order joined by " / "; None if there are none."""
    present = [str(v) for v in dict.fromkeys(values.dropna()) if str(v) != ""]
    return " / ".join(present) if present else None


def trial_errors(trials_with_meta: pd.DataFrame) -> pd.DataFrame:
    """One row per trial, ready for the chi-square test and the log odds models.

    ``trials_with_meta`` has participant, chart_id, correct, group, question,
    version and optionally manipulation, with each participant answering each
    chart at most once. Returns participant, group and question as strings,
    version as int, error (1.0 wrong or unanswered, 0.0 correct) and
    manipulation (None where the input has none).
    """
    import pandas as pd

    frame = pd.DataFrame(trials_with_meta)
    require_columns(frame, _TRIAL_META_COLUMNS, "trials_with_meta")
    if frame.duplicated(["participant", "chart_id"]).any():
        raise ValueError("each participant may answer each chart at most once")
    out = pd.DataFrame(
        {
            "participant": frame["participant"].astype(str).to_numpy(),
            "group": frame["group"].astype(str).to_numpy(),
            "question": frame["question"].astype(str).to_numpy(),
            "version": version_numbers(frame["version"]),
            "error": (~is_correct(frame["correct"])).astype(float),
        }
    )
    out["manipulation"] = frame["manipulation"].to_numpy() if "manipulation" in frame else None
    return out
