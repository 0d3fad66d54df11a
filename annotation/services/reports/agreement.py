"""The agreement part of a project report; the statistics are in ``analysis``.

Decisions measured: the binary factual / not-factual judgement of each sentence
(seed 001, section 2.3) and each error category on its own (marked or not).
Each decision's coefficients (which sentences each one counts, and why) are
:func:`analysis.decisions.decision_statistics`, over the per-sentence counts of
:mod:`annotation.services.reports.counts`; here the sentences that kappa and p leave
out are listed with the reason.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from analysis.arrays import sorted_unique
from analysis.binary_majority import binary_agreement_with_majority
from analysis.binary_pairs import binary_pairwise_kappa
from analysis.decisions import decision_statistics, decision_statistics_unequal
from analysis.json_safe import finite_or_none
from annotation.selectors.agreement import CategoryInfo, LabelDecisions
from annotation.services.reports.counts import SentenceCounts

if TYPE_CHECKING:
    pass

LEFT_OUT_IDS = 200
FACTUAL = "factual"


def _left_out(
    items: np.ndarray, raters: np.ndarray, sentences: np.ndarray, k: int, external_ids
) -> list:
    """Groups of items kappa and p leave out, by their number of raters (``items`` ascending)."""
    groups = []
    for count in sorted(set(raters.tolist()) - {k}):
        chosen = raters == count
        ids = items[chosen]
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
        shown_ids = ids[:LEFT_OUT_IDS].tolist()
        known = external_ids(shown_ids)
        shown = [known.get(i, str(i)) for i in shown_ids]
        groups.append(
            {
                "raters": int(count),
                "reason": reason,
                "items": len(ids),
                "sentences": int(sentences[chosen].sum()),
                "ids": shown,
                "more": max(0, len(ids) - LEFT_OUT_IDS),
            }
        )
    return groups


def _first_counts(decisions: LabelDecisions, marks: np.ndarray, first: int) -> dict:
    """Per-sentence (raters, positives) over each item's first ``first`` label sets only.

    The decisions come in submission order (``label_decisions`` reads label sets
    by primary key), so an annotator's rank on an item is the order in which
    their first row appears.
    """
    import pandas as pd

    rated = pd.DataFrame(
        {"item": decisions.item, "sentence": decisions.sentence, "rater": decisions.rater}
    )
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
    counts: SentenceCounts,
    *,
    k: int,
    categories: list[CategoryInfo],
    pseudonyms: dict[int, str],
    external_ids: Callable[[list[int]], dict[int, str]],
    first: int | None = None,
) -> dict | None:
    """Agreement per decision, items left out, pairwise kappa and each annotator's agreement.

    ``external_ids(ids)`` gives the external ids of the items listed as left out.

    ``counts`` are the decisions counted per sentence. ``first`` (adaptive overlap: k_min,
    with ``k`` = k_min): items have unequal numbers of raters, so kappa and p take each
    item's first ``first`` label sets (``analysis.decisions.decision_statistics_unequal``).
    """
    if not len(decisions):
        return None
    nonfactual = decisions.any_of([c.key for c in categories if c.factual])
    # Per item (ascending, as the sentences are): the most raters of any sentence, and sentences.
    items, starts = np.unique(counts.item, return_index=True)
    per_item = np.maximum.reduceat(counts.n_raters, starts)
    sentences_per_item = np.diff(np.append(starts, len(counts)))

    firsts = None
    if first is not None:
        firsts = _first_counts(decisions, np.column_stack([nonfactual, decisions.marks]), first)
    rows = []
    factual = _stats(
        counts.n_raters,
        counts.per_sentence(nonfactual),
        k=k,
        first_counts=firsts[0] if firsts else None,
    )
    rows.append({"decision": FACTUAL, "name": "Factual / not factual", **factual})
    for category in categories:
        if category.key not in counts.categories:
            continue
        column = counts.categories.index(category.key)
        stats = _stats(
            counts.n_raters,
            counts.n_positive[:, column],
            k=k,
            first_counts=firsts[1 + column] if firsts else None,
        )
        rows.append({"decision": category.key, "name": category.name, **stats})
    annotators = len(sorted_unique(decisions.rater))
    for row in rows:
        row["annotators"] = annotators

    left_out = per_item < k if first else per_item != k
    return {
        "decisions": rows,
        "left_out": _left_out(
            items[left_out], per_item[left_out], sentences_per_item[left_out], k, external_ids
        ),
        "items": int(len(per_item)),
        "items_complete": int((per_item >= k if first else per_item == k).sum()),
        "basis": _basis(k, first),
        "pairwise": _pairs(counts, decisions, nonfactual, pseudonyms),
        "annotators": _annotator_rows(decisions, counts, nonfactual, pseudonyms),
    }


def _pairs(
    counts: SentenceCounts, decisions: LabelDecisions, nonfactual: np.ndarray, pseudonyms
) -> list[dict]:
    """Cohen's kappa of every pair of annotators on the factual decision, lowest first."""
    pairwise = binary_pairwise_kappa(counts.row, decisions.rater, nonfactual)
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


def _annotator_rows(
    decisions: LabelDecisions, counts: SentenceCounts, nonfactual: np.ndarray, pseudonyms
) -> list[dict]:
    """How each annotator agrees with the majority: on factuality and on every category decision."""
    # Both decisions are yes/no: counted with numpy, not over a long frame of every category.
    on_factual = binary_agreement_with_majority(counts.row, decisions.rater, nonfactual).set_index(
        "rater"
    )
    # Every category a decision of its own on the same sentences: one column each.
    on_all = binary_agreement_with_majority(counts.row, decisions.rater, decisions.marks).set_index(
        "rater"
    )
    # Per annotator (ascending): items, sentences, and the means of two per-sentence counts.
    raters, who = np.unique(decisions.rater, return_inverse=True)
    who = who.reshape(-1)
    sentences = np.bincount(who, minlength=len(raters))
    span = int(decisions.item.max()) + 1
    items = np.bincount(
        sorted_unique(who.astype(np.int64) * span + decisions.item) // span, minlength=len(raters)
    )
    # Whole-number sums divided by the count: pandas' groupby mean gave the same floats.
    nonfactual_share = np.bincount(who, weights=nonfactual, minlength=len(raters)) / sentences
    marks = np.bincount(who, weights=decisions.marks.sum(axis=1), minlength=len(raters))
    rows = []
    for n, rater in enumerate(raters.tolist()):
        f = on_factual.loc[rater] if rater in on_factual.index else None
        a = on_all.loc[rater] if rater in on_all.index else None
        rows.append(
            {
                "annotator": pseudonyms.get(int(rater), str(rater)),
                "items": int(items[n]),
                "sentences": int(sentences[n]),
                "nonfactual_share": finite_or_none(nonfactual_share[n]),
                "marks_per_sentence": finite_or_none(marks[n] / sentences[n]),
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
