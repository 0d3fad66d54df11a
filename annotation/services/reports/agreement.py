"""The agreement part of a project report, computed with the statistics in ``analysis.agreement``.

Decisions measured: the binary factual / not-factual judgement of each sentence
(seed 001, section 2.3) and each error category on its own (marked or not).
For every decision:

* Fleiss' kappa and majority agreement p need the same number of raters on
  every sentence, so they use the sentences of items labelled by exactly k
  annotators; the others are listed under ``left_out`` with the reason.
* Krippendorff's alpha takes every sentence with at least two raters, the
  missing ratings as missing data; Gwet's AC1 takes every rated sentence
  (a single rating shapes the category shares only), as in Gwet (2008).

For nominal alpha only the values of a unit matter, not who gave them, so the
coders x units table is built with one row per rating slot (at most the
largest number of raters of a sentence) instead of one row per annotator: the
same alpha from a table of 3 rows where a pool of 50 annotators would need 50.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.agreement import (
    agreement_with_majority,
    fleiss_kappa,
    gwet_ac1,
    krippendorff_alpha,
    majority_agreement,
    pairwise_cohen_kappa,
)
from annotation.selectors.agreement import CategoryInfo, LabelDecisions

LEFT_OUT_IDS = 200
FACTUAL = "factual"


def _value(x) -> float | None:
    if x is None:
        return None
    x = float(x)
    return None if np.isnan(x) else x


def slot_matrix(n_raters: np.ndarray, n_positive: np.ndarray) -> np.ndarray:
    """A rating-slots x units table (1 = positive, 0 = negative, NaN = no rating) for nominal alpha."""
    slots = int(n_raters.max()) if len(n_raters) else 0
    index = np.arange(slots)[:, None]
    table = np.where(index < n_positive[None, :], 1.0, 0.0)
    table[index >= n_raters[None, :]] = np.nan
    return table


def decision_statistics(n_raters: np.ndarray, n_positive: np.ndarray, *, k: int) -> dict:
    """The four coefficients of one binary decision, from per-sentence rater and positive counts."""
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
        "positive_share": _value(n_positive.sum() / n_raters.sum()) if n_raters.sum() else None,
        "notes": [],
    }
    if k < 2:
        result["notes"].append("Kappa and p need at least 2 annotators per item (k).")
    elif full.any():
        result["fleiss_kappa"] = _value(fleiss_kappa(table[full]))
        result["majority_agreement"] = _value(majority_agreement(table[full]))
        if result["fleiss_kappa"] is None:
            result["notes"].append(
                "Kappa is undefined: every rating of the counted sentences is the same."
            )
    if paired.any():
        result["gwet_ac1"] = _value(gwet_ac1(table))
        alpha = krippendorff_alpha(slot_matrix(n_raters[paired], n_positive[paired]))
        result["krippendorff_alpha"] = _value(alpha)
    return result


def _left_out(per_item: pd.Series, sentences: pd.Series, k: int, external_ids: dict) -> list:
    groups = []
    for count in sorted(set(per_item.tolist()) - {k}):
        ids = per_item.index[per_item == count]
        if count < k:
            reason = (
                f"labelled by {count} of k = {k} annotators so far; kappa and p need "
                "the same number of raters on every sentence"
            )
        else:
            reason = (
                f"labelled by {count} annotators, more than k = {k} (k was lowered after "
                "they labelled); kappa and p need exactly k"
            )
        shown = [external_ids.get(int(i), str(i)) for i in ids[:LEFT_OUT_IDS]]
        groups.append(
            {
                "raters": int(count),
                "reason": reason,
                "items": len(ids),
                "sentences": int(sentences.loc[ids].sum()),
                "ids": shown,
                "more": max(0, len(ids) - LEFT_OUT_IDS),
            }
        )
    return groups


def agreement_section(
    decisions: LabelDecisions,
    votes: pd.DataFrame,
    *,
    k: int,
    categories: list[CategoryInfo],
    pseudonyms: dict[int, str],
    external_ids: dict[int, str],
) -> dict | None:
    """Agreement per decision, items left out, pairwise kappa and each annotator's agreement."""
    if not len(decisions):
        return None
    factual_keys = [c.key for c in categories if c.factual]
    rated = pd.DataFrame(
        {
            "item": decisions.item,
            "sentence": decisions.sentence,
            "rater": decisions.rater,
            "nonfactual": decisions.any_of(factual_keys),
        }
    )
    per_sentence = rated.groupby(["item", "sentence"], sort=True)["nonfactual"].agg(["size", "sum"])
    per_item = per_sentence["size"].groupby(level="item").max()
    sentences_per_item = per_sentence["size"].groupby(level="item").size()

    rows = []
    factual = decision_statistics(
        per_sentence["size"].to_numpy(), per_sentence["sum"].to_numpy(), k=k
    )
    rows.append({"decision": FACTUAL, "name": "Factual / not factual", **factual})
    by_category = {}
    for key, frame in votes.groupby("category", observed=True, sort=False):
        by_category[key] = frame
    for category in categories:
        frame = by_category.get(category.key)
        if frame is None:
            continue
        stats = decision_statistics(
            frame["n_raters"].to_numpy(), frame["n_positive"].to_numpy(), k=k
        )
        rows.append({"decision": category.key, "name": category.name, **stats})
    annotators = len(np.unique(decisions.rater))
    for row in rows:
        row["annotators"] = annotators

    pairwise = pairwise_cohen_kappa(
        rated.rename(columns={"nonfactual": "category"}), item=["item", "sentence"]
    )
    pairs = [
        {
            "annotator_a": pseudonyms.get(int(r.rater_a), str(r.rater_a)),
            "annotator_b": pseudonyms.get(int(r.rater_b), str(r.rater_b)),
            "sentences": int(r.n),
            "cohen_kappa": _value(r.kappa),
        }
        for r in pairwise.itertuples(index=False)
    ]
    pairs.sort(key=lambda p: (p["cohen_kappa"] is None, p["cohen_kappa"] or 0.0))

    return {
        "decisions": rows,
        "left_out": _left_out(per_item, sentences_per_item, k, external_ids),
        "items": int(len(per_item)),
        "items_complete": int((per_item == k).sum()),
        "pairwise": pairs,
        "annotators": _annotator_rows(decisions, rated, pseudonyms),
    }


def _annotator_rows(decisions: LabelDecisions, rated: pd.DataFrame, pseudonyms) -> list[dict]:
    """How each annotator agrees with the majority: on factuality and on every category decision."""
    on_factual = agreement_with_majority(
        rated.rename(columns={"nonfactual": "category"}), item=["item", "sentence"]
    ).set_index("rater")
    on_all = agreement_with_majority(
        decisions.frame(), item=["item", "sentence", "category"], category="value"
    ).set_index("rater")
    volume = pd.DataFrame(
        {
            "rater": decisions.rater,
            "item": decisions.item,
            "nonfactual": rated["nonfactual"].to_numpy(),
            "marks": decisions.marks.sum(axis=1),
        }
    ).groupby("rater", sort=True)
    summary = volume.agg(
        items=("item", "nunique"),
        sentences=("item", "size"),
        nonfactual=("nonfactual", "mean"),
        marks=("marks", "mean"),
    )
    rows = []
    for rater, row in summary.iterrows():
        f = on_factual.loc[rater] if rater in on_factual.index else None
        a = on_all.loc[rater] if rater in on_all.index else None
        rows.append(
            {
                "annotator": pseudonyms.get(int(rater), str(rater)),
                "items": int(row["items"]),
                "sentences": int(row["sentences"]),
                "nonfactual_share": _value(row["nonfactual"]),
                "marks_per_sentence": _value(row["marks"]),
                "factual_agree": int(f["agree"]) if f is not None else 0,
                "factual_counted": int(f["n"]) if f is not None else 0,
                "factual_ties": int(f["tied"]) if f is not None else 0,
                "factual_share": _value(f["share"]) if f is not None else None,
                "decisions_agree": int(a["agree"]) if a is not None else 0,
                "decisions_counted": int(a["n"]) if a is not None else 0,
                "decisions_share": _value(a["share"]) if a is not None else None,
            }
        )
    rows.sort(key=lambda r: r["annotator"])
    return rows
