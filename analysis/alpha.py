"""Krippendorff's alpha, for coders x units data with missing values or from value counts.

Kept apart from ``analysis.agreement`` (which re-exports ``krippendorff_alpha``) so that
callers with counts already, such as the yes/no decisions of ``analysis.decisions``,
reach the same computation without building a coders x units table.
"""

from __future__ import annotations

import numbers

import numpy as np

from analysis.arrays import sorted_unique, unit_value_counts

LEVELS = ("nominal", "ordinal", "interval", "ratio")

__all__ = ["LEVELS", "alpha_from_value_counts", "krippendorff_alpha"]


def _is_missing(value) -> bool:
    import pandas as pd

    if value is None:
        return True
    if not pd.api.types.is_scalar(value):
        return False
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def krippendorff_alpha(data, level: str = "nominal") -> float:
    """Krippendorff's alpha for coders x units data with missing values.

        alpha = 1 - D_o / D_e

    D_o is the observed disagreement among all pairable values (values of a
    unit coded by at least two coders), D_e the disagreement expected when the
    same values are paired at random, each weighted by the distance metric of
    the level of measurement (Krippendorff 2011, "Computing Krippendorff's
    Alpha-Reliability", Annenberg School for Communication, sections A-E).
    The computation is delegated to the ``krippendorff`` package.

    ``data`` is array-like or a DataFrame, one row per coder and one column per
    unit; None or NaN marks a value a coder did not give. ``level`` is one of
    "nominal", "ordinal", "interval", "ratio". Nominal data may hold any
    hashable labels (strings, booleans, numbers); the other levels need
    numbers, and "ratio" needs non-negative ones because its metric
    ((c - k) / (c + k))^2 assumes an absolute zero.

    Returns ``nan`` when all pairable values are identical (D_e = 0: nothing to
    tell apart). Raises ValueError for an unknown level, a table that is not
    2-D, non-numeric values at a numeric level, or no pairable values.
    """
    import pandas as pd

    if level not in LEVELS:
        raise ValueError(f"unknown level of measurement {level!r}; use one of {', '.join(LEVELS)}")
    if isinstance(data, np.ndarray) and data.dtype.kind in "biuf":
        # Numbers already: NaN is the only missing value, found without a Python call per cell
        # (a report over 100,000 sentences would otherwise spend seconds here).
        if data.ndim != 2 or data.size == 0:
            raise ValueError("data must be a non-empty 2-D coders x units table")
        numeric = data.astype(float)
        missing = np.isnan(numeric)
        if level == "ratio" and (numeric[~missing] < 0).any():
            raise ValueError("ratio data must not be negative")
        return _alpha(numeric, missing, level)
    values = data.to_numpy(dtype=object) if isinstance(data, pd.DataFrame) else None
    if values is None:
        try:
            values = np.asarray(data, dtype=object)
        except ValueError as exc:
            raise ValueError("data must be a rectangular coders x units table") from exc
    if values.ndim != 2 or values.size == 0:
        raise ValueError("data must be a non-empty 2-D coders x units table")

    missing = np.vectorize(_is_missing, otypes=[bool])(values)
    numeric = np.full(values.shape, np.nan)
    present = values[~missing]
    if level == "nominal":
        # Only equality matters for nominal data, so labels become arbitrary codes.
        codes, _ = pd.factorize(pd.Series(list(present), dtype=object))
        numeric[~missing] = codes
    else:
        for value in present:
            if not isinstance(value, numbers.Real):
                raise ValueError(
                    f"{level} data must be numbers; got {value!r}. "
                    "Map ordered labels to ranks before computing alpha."
                )
        numeric[~missing] = np.asarray(present, dtype=float)
        if level == "ratio" and (numeric[~missing] < 0).any():
            raise ValueError("ratio data must not be negative")
    return _alpha(numeric, missing, level)


def _alpha(numeric: np.ndarray, missing: np.ndarray, level: str) -> float:
    pairable_units = (~missing).sum(axis=0) >= 2
    if not pairable_units.any():
        raise ValueError(
            "no unit has values from at least 2 coders, so there are no pairable values"
        )
    pairable = numeric[:, pairable_units]
    if sorted_unique(pairable[~np.isnan(pairable)]).size < 2:
        return float("nan")
    counts, domain = unit_value_counts(numeric)
    return alpha_from_value_counts(counts, domain, level)


def alpha_from_value_counts(counts: np.ndarray, domain: np.ndarray, level: str) -> float:
    """Krippendorff's alpha from a units x values table of counts (``counts[u, v]`` coders gave
    unit u the value ``domain[v]``, the domain sorted): where every alpha here is computed."""
    import krippendorff

    return float(
        krippendorff.alpha(value_counts=counts, value_domain=domain, level_of_measurement=level)
    )
