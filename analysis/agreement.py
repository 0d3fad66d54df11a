"""Inter-rater agreement: Fleiss' kappa, majority agreement, Krippendorff's alpha,
Cohen's kappa and Gwet's AC1, plus the tables that feed them.

Two input shapes recur:

* a *counts table*: items x categories, cell = how many raters put the item in
  the category (what ``counts_table`` builds from long ratings);
* a *long frame*: one row per (item, rater) with the category the rater chose.

Coefficients that are undefined because chance agreement is already perfect
(everyone used one and the same category) return ``nan`` rather than raising,
so a per-category report can show "undefined" next to the categories that do
have a value.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from analysis.alpha import LEVELS, krippendorff_alpha

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "LEVELS",
    "agreement_with_majority",
    "cohen_kappa",
    "counts_table",
    "fleiss_kappa",
    "gwet_ac1",
    "krippendorff_alpha",
    "majority_agreement",
    "pairwise_cohen_kappa",
]


# --- counts tables -------------------------------------------------------------------------------


def _counts_array(counts) -> np.ndarray:
    """Validate an items x categories counts table and return it as int64."""
    import pandas as pd

    try:
        raw = counts.to_numpy() if isinstance(counts, pd.DataFrame) else np.asarray(counts)
    except ValueError as exc:  # ragged nested lists
        raise ValueError("counts must be a rectangular items x categories table") from exc
    if raw.ndim != 2:
        raise ValueError(
            f"counts must be a 2-D items x categories table, got {raw.ndim} dimension(s)"
        )
    if raw.shape[0] == 0 or raw.shape[1] == 0:
        raise ValueError("counts is empty: it needs at least one item and one category")
    try:
        values = raw.astype(float)
    except (TypeError, ValueError) as exc:
        raise ValueError("counts must contain numbers of raters") from exc
    if not np.isfinite(values).all():
        raise ValueError("counts must not contain NaN or infinite values")
    if (values < 0).any():
        raise ValueError("counts must not be negative")
    if (values != np.round(values)).any():
        raise ValueError("counts must be whole numbers of raters")
    return values.astype(np.int64)


def fleiss_kappa(counts) -> float:
    """Fleiss' kappa for N items each rated by the same number n of raters.

    With n_ij the number of raters who put item i in category j (Fleiss 1971,
    "Measuring nominal scale agreement among many raters", Psychological
    Bulletin 76(5)):

        P_i   = (sum_j n_ij^2 - n) / (n (n - 1))       agreement on item i
        P_bar = (1/N) sum_i P_i                          observed agreement
        p_j   = (1/(N n)) sum_i n_ij                     share of category j
        P_e   = sum_j p_j^2                              chance agreement
        kappa = (P_bar - P_e) / (1 - P_e)

    ``counts`` is array-like or a DataFrame, items x categories. When every
    rating falls in a single category, P_e = 1 and kappa is 0/0: the function
    returns ``nan`` because no agreement beyond chance can be measured.

    Raises ValueError for an empty table, negative or fractional counts, rows
    with different totals, or fewer than 2 raters per item.
    """
    table = _counts_array(counts)
    totals = table.sum(axis=1)
    if (totals != totals[0]).any():
        found = ", ".join(str(t) for t in sorted(set(totals.tolist())))
        raise ValueError(
            f"Fleiss' kappa needs the same number of raters on every item; row totals are {found}"
        )
    n = int(totals[0])
    if n < 2:
        raise ValueError(f"Fleiss' kappa needs at least 2 raters per item, got {n}")
    n_items = table.shape[0]
    p_items = ((table**2).sum(axis=1) - n) / (n * (n - 1))
    p_bar = p_items.mean()
    column_totals = table.sum(axis=0)
    if np.count_nonzero(column_totals) == 1:
        return float("nan")
    p_j = column_totals / (n_items * n)
    p_e = float((p_j**2).sum())
    return float((p_bar - p_e) / (1 - p_e))


def majority_agreement(counts) -> float:
    """Majority agreement p: the mean share of raters who chose each item's majority category.

        p = (1/N) sum_i max_j(n_ij) / n_i,    n_i = sum_j n_ij

    This is the "percentage of annotators that agree with the majority class"
    reported beside Fleiss' kappa by Pagnoni et al. (2021, FRANK, NAACL) and by
    CHOCOLATE (Huang et al., section 2.3: kappa = 0.63, p = 91%). A tie still
    counts its largest category, so p is defined for every item.

    Items may have different numbers of raters: each is divided by its own
    total n_i. Raises ValueError for an empty table, negative or fractional
    counts, or an item with no rater.
    """
    table = _counts_array(counts)
    totals = table.sum(axis=1)
    if (totals < 1).any():
        first = int(np.flatnonzero(totals < 1)[0])
        raise ValueError(f"every item needs at least 1 rater; row {first} has none")
    return float((table.max(axis=1) / totals).mean())


def gwet_ac1(counts) -> float:
    """Gwet's AC1 for any number of raters, from an items x categories counts table.

    With r_ik raters putting item i in category k, r_i = sum_k r_ik and q the
    number of categories (Gwet 2008, "Computing inter-rater reliability and its
    variance in the presence of high agreement", British Journal of
    Mathematical and Statistical Psychology 61, 29-48, eqs. for multiple raters):

        p_a  = (1/n') sum_{i: r_i >= 2} sum_k r_ik (r_ik - 1) / (r_i (r_i - 1))
        pi_k = (1/n) sum_i r_ik / r_i
        p_e  = (1/(q - 1)) sum_k pi_k (1 - pi_k)
        AC1  = (p_a - p_e) / (1 - p_e)

    where n is the number of items and n' those with at least two raters; an
    item seen by one rater only shapes pi_k, as in Gwet's treatment of missing
    ratings. q is the number of columns, so include every category of the
    scale, used or not: unused categories change p_e. p_e <= 1/q < 1, so AC1 is
    always defined.

    Raises ValueError for an empty table, negative or fractional counts, fewer
    than 2 categories, an item with no rater, or no item with 2 raters.
    """
    table = _counts_array(counts)
    n_categories = table.shape[1]
    if n_categories < 2:
        raise ValueError("Gwet's AC1 needs at least 2 categories (columns)")
    totals = table.sum(axis=1)
    if (totals < 1).any():
        first = int(np.flatnonzero(totals < 1)[0])
        raise ValueError(f"every item needs at least 1 rater; row {first} has none")
    paired = totals >= 2
    if not paired.any():
        raise ValueError("Gwet's AC1 needs at least one item rated by 2 or more raters")
    sub, sub_totals = table[paired], totals[paired]
    p_a = ((sub * (sub - 1)).sum(axis=1) / (sub_totals * (sub_totals - 1))).mean()
    pi = (table / totals[:, None]).mean(axis=0)
    p_e = float((pi * (1 - pi)).sum() / (n_categories - 1))
    return float((p_a - p_e) / (1 - p_e))


# --- Cohen's kappa (Krippendorff's alpha: analysis.alpha) ----------------------------------------


def cohen_kappa(a: Iterable, b: Iterable) -> float:
    """Cohen's kappa between two raters' labels for the same items, in the same order.

        p_o   = (1/n) #{i : a_i = b_i}
        p_e   = sum_k (n_ak / n) (n_bk / n)
        kappa = (p_o - p_e) / (1 - p_e)

    where n_ak is how often rater a used label k (Cohen 1960, "A coefficient of
    agreement for nominal scales", Educational and Psychological Measurement
    20(1)). Positions where either label is None or NaN are dropped first, so n
    counts only the items both raters labelled; sequences are matched by
    position, not by any pandas index.

    Returns ``nan`` when both raters used one and the same label throughout
    (p_e = 1). Raises ValueError for sequences of different length or when no
    position has labels from both raters.
    """
    import pandas as pd

    first, second = list(a), list(b)
    if len(first) != len(second):
        raise ValueError(
            f"the two raters need label sequences of the same length, got {len(first)} and {len(second)}"
        )
    # Vectorised (pairwise kappa over 100,000 sentences calls this per pair of raters):
    # pd.isna on object arrays is _is_missing element by element (None, NaN, NA; a list is not
    # missing), and factorize groups labels by hash and ==, as Counter does.
    a_values = np.empty(len(first), dtype=object)
    b_values = np.empty(len(second), dtype=object)
    a_values[:], b_values[:] = first, second
    keep = ~(pd.isna(a_values) | pd.isna(b_values))
    n = int(keep.sum())
    if not n:
        raise ValueError("no item was labelled by both raters")
    codes, uniques = pd.factorize(np.concatenate([a_values[keep], b_values[keep]]))
    codes_a, codes_b = codes[:n], codes[n:]
    count_a = np.bincount(codes_a, minlength=len(uniques))
    count_b = np.bincount(codes_b, minlength=len(uniques))
    used_a, used_b = count_a > 0, count_b > 0
    if used_a.sum() == 1 and np.array_equal(used_a, used_b):
        return float("nan")
    p_o = int((codes_a == codes_b).sum()) / n
    p_e = int((count_a * count_b).sum()) / n**2
    return float((p_o - p_e) / (1 - p_e))


# --- long frames -----------------------------------------------------------------------------------


def _key_list(item: str | Sequence[str]) -> list[str]:
    return [item] if isinstance(item, str) else list(item)


def _rated_rows(frame: pd.DataFrame, keys: list[str], rater: str, category: str) -> pd.DataFrame:
    """The rows that carry a rating, checked for the columns and for double ratings."""
    import pandas as pd

    if not isinstance(frame, pd.DataFrame):
        raise ValueError("ratings must be a pandas DataFrame in long form (item, rater, category)")
    needed = [*keys, rater, category]
    absent = [c for c in needed if c not in frame.columns]
    if absent:
        raise ValueError(f"ratings lack the column(s) {', '.join(absent)}")
    identity = frame[[*keys, rater]]
    if identity.isna().any().any():
        raise ValueError("every rating needs an item and a rater; some are missing")
    # A missing category means the rater saw the item but gave no rating.
    rated = frame.loc[frame[category].notna(), needed]
    doubled = rated.duplicated([*keys, rater], keep=False)
    if doubled.any():
        row = rated.loc[doubled].iloc[0]
        where = ", ".join(f"{k}={row[k]!r}" for k in keys)
        raise ValueError(f"rater {row[rater]!r} rated the same item more than once ({where})")
    return rated


def _ordered(values: Iterable[Hashable]) -> list:
    unique = list(dict.fromkeys(values))
    try:
        return sorted(unique)
    except TypeError:  # labels of mixed types keep their order of appearance
        return unique


def counts_table(
    ratings: pd.DataFrame,
    *,
    item: str | Sequence[str] = "item",
    rater: str = "rater",
    category: str = "category",
    categories: Sequence[Hashable] | None = None,
) -> pd.DataFrame:
    """Turn long ratings (one row per item and rater) into an items x categories counts table.

    ``item`` names the column, or columns, that identify an item (for caption
    labels: ``["item", "sentence"]``); ``category`` names the column holding
    what the rater chose. Rows whose category is missing are left out. Pass
    ``categories`` to fix the columns and their order, including categories
    nobody chose (Gwet's AC1 depends on them); otherwise the categories seen
    are used, sorted.

    Raises ValueError for missing columns, ratings without item or rater, a
    rater rating the same item twice, or a category outside ``categories``.
    """
    import pandas as pd

    keys = _key_list(item)
    rated = _rated_rows(ratings, keys, rater, category)
    if categories is not None:
        columns = list(categories)
        unknown = set(rated[category]) - set(columns)
        if unknown:
            raise ValueError(f"ratings use categories not in `categories`: {_ordered(unknown)}")
    else:
        columns = _ordered(rated[category])
    if rated.empty:
        index = (
            pd.Index([], name=keys[0])
            if len(keys) == 1
            else pd.MultiIndex.from_tuples([], names=keys)
        )
        return pd.DataFrame(
            0, index=index, columns=pd.Index(columns, name=category), dtype=np.int64
        )
    table = rated.groupby([*keys, category], sort=True).size().unstack(category, fill_value=0)
    table = table.reindex(columns=columns, fill_value=0).astype(np.int64)
    table.columns.name = category
    return table


def pairwise_cohen_kappa(
    frame: pd.DataFrame,
    *,
    item: str | Sequence[str] = "item",
    rater: str = "rater",
    category: str = "category",
) -> pd.DataFrame:
    """Cohen's kappa for every pair of raters over the items both of them rated.

    Returns one row per pair with columns ``rater_a``, ``rater_b`` (a sorts
    before b), ``n`` (items both rated) and ``kappa`` (see ``cohen_kappa``;
    ``nan`` when both used a single shared label). Pairs without a shared item
    are left out, since no kappa exists for them.
    """
    import pandas as pd

    keys = _key_list(item)
    rated = _rated_rows(frame, keys, rater, category)
    result_columns = ["rater_a", "rater_b", "n", "kappa"]
    if rated.empty:
        return pd.DataFrame(columns=result_columns)
    wide = rated.set_index([*keys, rater])[category].astype(object).unstack(rater)
    raters = _ordered(wide.columns)
    # Once per rater, not once per pair: on object columns every check is a Python-level
    # scan, and 30 raters make 435 pairs.
    present = wide.notna()
    rows = []
    for index, rater_a in enumerate(raters):
        for rater_b in raters[index + 1 :]:
            shared = present[rater_a] & present[rater_b]
            n_shared = int(shared.sum())
            if n_shared == 0:
                continue
            kappa = cohen_kappa(wide.loc[shared, rater_a], wide.loc[shared, rater_b])
            rows.append({"rater_a": rater_a, "rater_b": rater_b, "n": n_shared, "kappa": kappa})
    return pd.DataFrame(rows, columns=result_columns)


def agreement_with_majority(
    frame: pd.DataFrame,
    *,
    item: str | Sequence[str] = "item",
    rater: str = "rater",
    category: str = "category",
) -> pd.DataFrame:
    """Per rater, the share of their ratings that match the item's majority category.

        share_r = #{items i rated by r: label_ri = majority_i} / #{items i rated by r with a majority}

    The majority is the category chosen by the most raters of the item,
    counting the rater's own vote. Items whose top categories tie have no
    majority and are left out of both counts (their number is reported as
    ``tied``): calling either side "right" would penalise a rater for a
    coin flip. Items rated by a single rater say nothing about agreement and
    are ignored.

    Returns one row per rater with columns ``rater``, ``n`` (ratings counted),
    ``agree``, ``share`` (agree / n, ``nan`` when n = 0) and ``tied``.
    """
    import pandas as pd

    keys = _key_list(item)
    rated = _rated_rows(frame, keys, rater, category)
    result_columns = ["rater", "n", "agree", "share", "tied"]
    if rated.empty:
        return pd.DataFrame(columns=result_columns)

    tally = rated.groupby([*keys, category], sort=False).size().rename("votes").reset_index()
    per_item = tally.groupby(keys, sort=False)["votes"]
    tally["top"] = per_item.transform("max")
    tally["raters"] = per_item.transform("sum")
    is_top = tally["votes"] == tally["top"]
    tally["n_top"] = is_top.groupby([tally[k] for k in keys], sort=False).transform("sum")
    shared = tally["raters"] >= 2
    winners = tally.loc[is_top & shared & (tally["n_top"] == 1), [*keys, category]]
    winners = winners.rename(columns={category: "_majority"})
    tied_items = tally.loc[shared & (tally["n_top"] > 1), keys].drop_duplicates()

    merged = rated.merge(winners, on=keys, how="left")
    merged = merged.merge(tied_items.assign(_tied=1), on=keys, how="left")
    merged["_tied"] = merged["_tied"].notna()
    merged["_counted"] = merged["_majority"].notna()
    merged["_agree"] = merged["_counted"] & (merged[category] == merged["_majority"])

    grouped = merged.groupby(rater, sort=True)
    result = pd.DataFrame(
        {
            "n": grouped["_counted"].sum().astype(np.int64),
            "agree": grouped["_agree"].sum().astype(np.int64),
            "tied": grouped["_tied"].sum().astype(np.int64),
        }
    )
    result["share"] = result["agree"] / result["n"].where(result["n"] > 0)
    result = result.reset_index().rename(columns={rater: "rater"})
    return result[result_columns]
