import json
import math

import numpy as np
import pandas as pd
import pytest

from analysis.json_safe import finite_or_none, json_safe


def test_it_turns_undefined_statistics_into_null_and_numpy_into_plain_numbers():
    value = {
        "kappa": np.float64("nan"),
        "ratio": float("inf"),
        "floor": -np.inf,
        "n": np.int64(3),
        "flag": np.bool_(True),
        "share": np.float32(0.5),
        "missing": pd.NA,
        "when": pd.NaT,
        1: ("a", [np.nan, 2.5]),
    }
    cleaned = json_safe(value)
    assert cleaned == {
        "kappa": None,
        "ratio": None,
        "floor": None,
        "n": 3,
        "flag": True,
        "share": 0.5,
        "missing": None,
        "when": None,
        "1": ["a", [None, 2.5]],
    }
    assert type(cleaned["n"]) is int and type(cleaned["share"]) is float
    # Strict JSON (what browsers parse) accepts it.
    assert json.loads(json.dumps(cleaned, allow_nan=False)) == cleaned


def test_it_leaves_plain_values_alone():
    assert json_safe("text") == "text"
    assert json_safe(None) is None
    assert json_safe(0.0) == 0.0
    assert json_safe([]) == []


@pytest.mark.parametrize(
    "value, expected",
    [
        (None, None),
        (pd.NA, None),
        (np.nan, None),
        (math.inf, None),
        (-np.inf, None),
        (np.float64(0.25), 0.25),
        (np.int64(2), 2.0),
        (0, 0.0),
    ],
)
def test_a_coefficient_is_a_finite_float_or_none(value, expected):
    result = finite_or_none(value)
    assert result == expected
    assert result is None or type(result) is float
