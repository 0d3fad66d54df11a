"""Statistics as JSON: the values a result holds, made safe to store and serve.

JSON has no NaN or infinity (``json.dumps`` writes them as bare ``NaN`` /
``Infinity``, which ``JSON.parse`` rejects), and numpy scalars are not JSON
types. A statistic that is undefined (a kappa of constant ratings, a tau of a
constant ranking) is therefore stored as null.
"""

from __future__ import annotations

import math

import numpy as np


def finite_or_none(value) -> float | None:
    """``value`` as a plain float, or None when it is missing, NaN or infinite."""
    import pandas as pd

    if value is None or value is pd.NA or value is pd.NaT:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def json_safe(value):
    """JSON-safe: NaN and infinities become None, numpy scalars plain numbers.

    Dicts (keys made strings), lists and tuples are cleaned recursively; tuples
    become lists. Anything else is returned as it is.
    """
    import pandas as pd

    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
