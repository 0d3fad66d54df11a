"""The agreement part of a project report; the statistics are in ``analysis``.

Decisions measured: the binary factual / not-factual judgement of each sentence
(seed 001, section 2.3) and each error category on its own (marked or not).
Each decision's coefficients (which sentences each one counts, and why) are
:func:`analysis.decisions.decision_statistics`; here the per-sentence counts are
built, and the sentences that kappa and p leave out are listed with the reason.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from analysis.agreement import pairwise_cohen_kappa
from analysis.arrays import sorted_unique
from analysis.binary_majority import binary_agreement_with_majority
from analysis.decisions import decision_statistics, decision_statistics_unequal
from analysis.json_safe import finite_or_none
from annotation.selectors.agreement import CategoryInfo, LabelDecisions

if TYPE_CHECKING:
    import pandas as pd

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


def _first_counts(rated: pd.DataFrame, marks: np.ndarray, first: int) -> dict:
    """Per-sentence (raters, positives) over each item's first ``first`` label sets only.

    ``rated`` rows come in submission order (``label_decisions`` reads label sets
    by primary key), so an annotator's rank on an item is the order in which
    their first row appears.
    """
    import pandas as pd

    pairs = rated[["item", "rater"]].drop_duplicates()
    rank = pairs.assign(rank=pairs.groupby("item").cumcount()).set_index(["item", "rater"])["rank"]
    keep = rank.reindex(pd.MultiIndex.from_frame(rated[["item", "rater"]])).to_numpy() < first
    frame = pd.DataFrame(marks[keep]).assign(
        item=rated["item"].to_numpy()[keep], sentence=rated["sentence"].to_numpy()[keep]
    )
    grouped = frame.groupby(["item", "sentence"], sort=True)
    sizes = grouped.size().to_numpy()
    sums = grouped.sum()
    return {column: (sizes, sums[column].to_numpy()) for column in range(marks.shape[1])}


def _stats(n_raters, n_positive, *, k: int, first_counts) -> dict:
    if first_counts is None:
        return decision_statistics(n_raters, n_positive, k=k)
    return decision_statistics_unequal(n_raters, n_positive, *first_counts, k_min=k)


def agreement_section(
    decisions: LabelDecisions,
    votes: pd.DataFrame,
    *,
    k: int,
    categories: list[CategoryInfo],
    pseudonyms: dict[int, str],
    external_ids: dict[int, str],
    first: int | None = None,
) -> dict | None:
    """Agreement per decision, items left out, pairwise kappa and each annotator's agreement.

    ``first`` (adaptive overlap: k_min, with ``k`` = k_min): items have unequal
    numbers of raters, so kappa and p take each item's first ``first`` label
    sets (``analysis.decisions.decision_statistics_unequal``).
    """
    import pandas as pd

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

    firsts = None
    if first is not None:
        marks = np.column_stack([rated["nonfactual"].to_numpy(), decisions.marks])
        firsts = _first_counts(rated, marks, first)
    rows = []
    factual = _stats(
        per_sentence["size"].to_numpy(),
        per_sentence["sum"].to_numpy(),
        k=k,
        first_counts=firsts[0] if firsts else None,
    )
    rows.append({"decision": FACTUAL, "name": "Factual / not factual", **factual})
    by_category = {}
    for key, frame in votes.groupby("category", observed=True, sort=False):
        by_category[key] = frame
    for category in categories:
        frame = by_category.get(category.key)
        if frame is None:
            continue
        column = 1 + decisions.categories.index(category.key) if firsts else None
        stats = _stats(
            frame["n_raters"].to_numpy(),
            frame["n_positive"].to_numpy(),
            k=k,
            first_counts=firsts[column] if firsts else None,
        )
        rows.append({"decision": category.key, "name": category.name, **stats})
    annotators = len(sorted_unique(decisions.rater))
    for row in rows:
        row["annotators"] = annotators

    pairs = _pairs(rated, pseudonyms)

    return {
        "decisions": rows,
        "left_out": _left_out(
            per_item[per_item < k] if first else per_item, sentences_per_item, k, external_ids
        ),
        "items": int(len(per_item)),
        "items_complete": int((per_item >= k if first else per_item == k).sum()),
        "basis": _basis(k, first),
        "pairwise": pairs,
        "annotators": _annotator_rows(decisions, rated, pseudonyms),
    }


def _pairs(rated: pd.DataFrame, pseudonyms: dict[int, str]) -> list[dict]:
    """Cohen's kappa of every pair of annotators on the factual decision, lowest first."""
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
    return pairs


def _basis(k: int, first: int | None) -> str:
    if first is None:
        return (
            f"κ and p use the sentences of items with exactly k = {k} annotators; α uses every "
            "sentence with at least two (others as missing data), AC1 every rated sentence."
        )
    return (
        f"Adaptive overlap gives items unequal numbers of annotators: κ and p use the first "
        f"k_min = {first} label sets of every item that has them; α and AC1 use every label set "
        "(α every sentence with at least two)."
    )


def _annotator_rows(decisions: LabelDecisions, rated: pd.DataFrame, pseudonyms) -> list[dict]:
    """How each annotator agrees with the majority: on factuality and on every category decision."""
    import pandas as pd

    # Both decisions are yes/no: counted with numpy, not over a long frame of every category.
    sentence = decisions.item * (int(decisions.sentence.max()) + 1) + decisions.sentence
    on_factual = binary_agreement_with_majority(
        sentence, decisions.rater, rated["nonfactual"].to_numpy()
    ).set_index("rater")
    # Every category a decision of its own on the same sentences: one column each.
    on_all = binary_agreement_with_majority(sentence, decisions.rater, decisions.marks).set_index(
        "rater"
    )
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
