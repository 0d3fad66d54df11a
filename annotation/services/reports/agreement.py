"""The agreement part of a project report; the statistics are in ``analysis``.

Decisions measured: the binary factual / not-factual judgement of each sentence
(seed 001, section 2.3) and each error category on its own (marked or not).
Each decision's coefficients (which sentences each one counts, and why) are
:func:`analysis.decisions.decision_statistics`; here the per-sentence counts are
built, and the sentences that kappa and p leave out are listed with the reason.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.agreement import agreement_with_majority, pairwise_cohen_kappa
from analysis.decisions import decision_statistics
from analysis.json_safe import finite_or_none
from annotation.selectors.agreement import CategoryInfo, LabelDecisions

LEFT_OUT_IDS = 200
FACTUAL = "factual"


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
            "cohen_kappa": finite_or_none(r.kappa),
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
                "nonfactual_share": finite_or_none(row["nonfactual"]),
                "marks_per_sentence": finite_or_none(row["marks"]),
                "factual_agree": int(f["agree"]) if f is not None else 0,
                "factual_counted": int(f["n"]) if f is not None else 0,
                "factual_ties": int(f["tied"]) if f is not None else 0,
                "factual_share": finite_or_none(f["share"]) if f is not None else None,
                "decisions_agree": int(a["agree"]) if a is not None else 0,
                "decisions_counted": int(a["n"]) if a is not None else 0,
                "decisions_share": finite_or_none(a["share"]) if a is not None else None,
            }
        )
    rows.sort(key=lambda r: r["annotator"])
    return rows
