"""Cohen's kappa of every pair of raters for a yes/no decision, counted with numpy.

The same numbers as :func:`analysis.agreement.pairwise_cohen_kappa` when every rating is a
yes or a no. With two values, what one pair of raters did on the units both rated is a
2 x 2 table, so every pair's table is one ``bincount`` over the pairs of ratings that
share a unit: no wide table of every unit by every rater (of Python objects), no pass
per pair over it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

COLUMNS = ["rater_a", "rater_b", "n", "kappa"]


def binary_pairwise_kappa(unit, rater, value) -> pd.DataFrame:
    """One row per pair of raters with a unit in common: ``rater_a`` < ``rater_b``, ``n``, ``kappa``.

    One entry per rating in the three arrays: ``unit`` (integer codes), ``rater`` and
    ``value`` (bool). A rater rates a unit at most once (ValueError otherwise). Kappa is
    :func:`analysis.agreement.cohen_kappa` from the same whole numbers, so the same float:
    ``nan`` when both raters gave one and the same value throughout.
    """
    import pandas as pd

    unit = np.asarray(unit, dtype=np.int64)
    rater = np.asarray(rater)
    value = np.asarray(value, dtype=bool)
    if not len(unit):
        return pd.DataFrame(columns=COLUMNS)
    names, who = np.unique(rater, return_inverse=True)
    order = np.lexsort((who.reshape(-1), unit))
    unit, who, value = unit[order], who.reshape(-1)[order], value[order]
    del order
    if ((unit[1:] == unit[:-1]) & (who[1:] == who[:-1])).any():
        raise ValueError("a rater rated the same unit more than once")
    raters = len(names)
    # cell = pair * 4 + 2 * a's value + b's value, for a before b on a unit (sorted by rater),
    # tallied step by step (the ratings `step` apart on a unit) so only the tallies add up.
    tallies = []
    for step in range(1, len(unit)):
        same = unit[step:] == unit[:-step]
        if not same.any():
            break
        pair = who[:-step][same] * raters + who[step:][same]
        tallies.append(
            np.unique(pair * 4 + 2 * value[:-step][same] + value[step:][same], return_counts=True)
        )
    # Only the pairs that share a unit: a pool of hundreds of raters has few of its pairs.
    found, where = np.unique(
        np.concatenate([cells for cells, _ in tallies] or [np.zeros(0, np.int64)]),
        return_inverse=True,
    )
    counts = np.bincount(
        where.reshape(-1),
        weights=np.concatenate([n for _, n in tallies] or [np.zeros(0, np.int64)]),
        minlength=len(found),
    ).astype(np.int64)
    pairs, starts = np.unique(found // 4, return_index=True)
    ends = np.append(starts[1:], len(found))[: len(starts)]
    rows = []
    for pair, start, end in zip(pairs.tolist(), starts.tolist(), ends.tolist(), strict=True):
        table = np.zeros(4, dtype=np.int64)
        table[found[start:end] % 4] = counts[start:end]
        a, b = divmod(pair, raters)
        rows.append(
            {
                "rater_a": names[a],
                "rater_b": names[b],
                "n": int(table.sum()),
                "kappa": _kappa(table.reshape(2, 2)),
            }
        )
    return pd.DataFrame(rows, columns=COLUMNS)


def _kappa(table: np.ndarray) -> float:
    """Cohen's kappa of one 2 x 2 table (rows: a's value, columns: b's), as ``cohen_kappa``."""
    (no_no, no_yes), (yes_no, yes_yes) = table.tolist()
    n = no_no + no_yes + yes_no + yes_yes
    if no_no == n or yes_yes == n:  # one value, the same for both: p_e = 1
        return float("nan")
    a_yes, b_yes = yes_no + yes_yes, no_yes + yes_yes
    p_o = (no_no + yes_yes) / n
    p_e = ((n - a_yes) * (n - b_yes) + a_yes * b_yes) / n**2
    return float((p_o - p_e) / (1 - p_e))
