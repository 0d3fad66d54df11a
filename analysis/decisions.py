"""The agreement coefficients of one binary decision over a project's sentences.

A decision is a yes/no judgement each annotator makes about each sentence: is it
not factual (seed 001, section 2.3), or does it have a given error category.
It is summarised per sentence by two counts, ``n_raters`` (annotators who rated
it) and ``n_positive`` (of those, how many said yes), from which every
coefficient here is computed.
"""

from __future__ import annotations

import numpy as np

from analysis.agreement import fleiss_kappa, gwet_ac1, majority_agreement
from analysis.alpha import alpha_from_value_counts
from analysis.json_safe import finite_or_none


def slot_matrix(n_raters: np.ndarray, n_positive: np.ndarray) -> np.ndarray:
    """A rating-slots x units table (1 = positive, 0 = negative, NaN = no rating) for nominal alpha.

    Unit j fills slots 0..n_raters[j]-1: the first n_positive[j] with 1, the rest
    with 0; the slots above are missing. Nominal Krippendorff's alpha depends only
    on the values within each unit (their coincidence matrix, Krippendorff 2011,
    "Computing Krippendorff's alpha-reliability"), not on who gave them, so this
    table of max(n_raters) rows gives the same alpha as one row per annotator.
    """
    n_raters = np.asarray(n_raters, dtype=np.int64)
    n_positive = np.asarray(n_positive, dtype=np.int64)
    slots = int(n_raters.max()) if len(n_raters) else 0
    index = np.arange(slots)[:, None]
    table = np.where(index < n_positive[None, :], 1.0, 0.0)
    table[index >= n_raters[None, :]] = np.nan
    return table


def binary_alpha(n_raters: np.ndarray, n_positive: np.ndarray) -> float:
    """Nominal Krippendorff's alpha of units each rated yes/no by ``n_raters`` >= 2 raters,
    ``n_positive`` of them yes: ``krippendorff_alpha(slot_matrix(n_raters, n_positive))``.

    Per unit, the counts of no and yes are the value counts alpha is computed from, so
    they go to it as they are: building the slots table and finding its values again took
    most of the time of a decision over 100,000 sentences.
    """
    counts = np.column_stack([n_raters - n_positive, n_positive]).astype(np.int64)
    used = counts.sum(axis=0) > 0
    if used.sum() < 2:  # one value throughout: nothing to tell apart
        return float("nan")
    return alpha_from_value_counts(counts, np.array([0.0, 1.0]), "nominal")


def decision_statistics(n_raters, n_positive, *, k: int) -> dict:
    """The four coefficients of one binary decision, from per-sentence rater and positive counts.

    * Fleiss' kappa (Fleiss 1971) and majority agreement p (the mean over
      sentences of the share of raters in the majority; Pagnoni et al. 2021 and
      CHOCOLATE, seed 001, section 2.3)
      need the same number of raters on every sentence, so they use only the
      sentences rated by exactly ``k`` annotators (``sentences``), and none when
      k < 2.
    * Krippendorff's alpha (nominal, over :func:`slot_matrix`) takes every sentence
      with at least two raters (``sentences_all``), missing ratings as missing data.
    * Gwet's AC1 (Gwet 2008) takes every rated sentence: a single rating shapes
      the category shares only.

    ``positive_share`` = sum(n_positive) / sum(n_raters). Undefined coefficients
    are None, and ``notes`` says why where a researcher would ask.
    """
    n_raters = np.asarray(n_raters, dtype=np.int64)
    n_positive = np.asarray(n_positive, dtype=np.int64)
    table = np.column_stack([n_raters - n_positive, n_positive])
    full = n_raters == k
    paired = n_raters >= 2
    result = {
        "fleiss_kappa": None,
        "majority_agreement": None,
        "krippendorff_alpha": None,
        "gwet_ac1": None,
        "sentences": int(full.sum()) if k >= 2 else 0,
        "sentences_all": int(paired.sum()),
        "raters": k,
        "positive_share": (
            finite_or_none(n_positive.sum() / n_raters.sum()) if n_raters.sum() else None
        ),
        "notes": [],
    }
    if k < 2:
        result["notes"].append("Kappa and p need at least 2 annotators per item (k).")
    elif full.any():
        result["fleiss_kappa"] = finite_or_none(fleiss_kappa(table[full]))
        result["majority_agreement"] = finite_or_none(majority_agreement(table[full]))
        if result["fleiss_kappa"] is None:
            result["notes"].append(
                "Kappa is undefined: every rating of the counted sentences is the same."
            )
    if paired.any():
        result["gwet_ac1"] = finite_or_none(gwet_ac1(table))
        alpha = binary_alpha(n_raters[paired], n_positive[paired])
        result["krippendorff_alpha"] = finite_or_none(alpha)
    return result


def decision_statistics_unequal(
    n_raters, n_positive, first_raters, first_positive, *, k_min: int
) -> dict:
    """The coefficients of one decision when items have unequal numbers of raters (adaptive overlap).

    Fleiss' kappa and majority agreement need the same raters on every sentence:
    they take the first ``k_min`` ratings of every sentence that has them
    (``first_raters`` / ``first_positive``: the counts over those ratings only),
    which every item gets whatever the rule asked for later, so the sample is
    not tilted towards the disputed items. Krippendorff's alpha and Gwet's AC1
    take every rating (``n_raters`` / ``n_positive``), as in
    :func:`decision_statistics`.
    """
    everything = decision_statistics(n_raters, n_positive, k=k_min)
    first = decision_statistics(first_raters, first_positive, k=k_min)
    return {
        **everything,
        "fleiss_kappa": first["fleiss_kappa"],
        "majority_agreement": first["majority_agreement"],
        "sentences": first["sentences"],
        "notes": first["notes"],
    }
