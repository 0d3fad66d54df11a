"""Agreement from a long frame of ratings: counts tables, pairwise kappa, agreement with the majority."""

import math

import pandas as pd
import pytest

from analysis.agreement import (
    agreement_with_majority,
    cohen_kappa,
    counts_table,
    fleiss_kappa,
    pairwise_cohen_kappa,
)
from analysis.tests.agreement_data import FLEISS_EXAMPLE

# Fleiss (1971) as worked on Wikipedia ("Fleiss' kappa", worked example):
# 10 subjects, 14 raters each, 5 categories.


@pytest.fixture
def ratings():
    return pd.DataFrame(
        {
            "item": [1, 1, 1, 2, 2, 2, 3, 3, 4, 5, 5, 5],
            "rater": ["a", "b", "c", "a", "b", "c", "a", "b", "a", "a", "b", "c"],
            "category": ["x", "x", "y", "y", "y", "y", "x", "y", "x", "z", "x", "y"],
        }
    )


def test_counts_table_counts_raters_per_item_and_category(ratings):
    table = counts_table(ratings)
    assert list(table.columns) == ["x", "y", "z"]
    assert table.loc[1].tolist() == [2, 1, 0]
    assert table.loc[3].tolist() == [1, 1, 0]
    assert table.loc[5].tolist() == [1, 1, 1]
    assert table.to_numpy().sum() == len(ratings)


def test_counts_table_keeps_declared_categories_nobody_used(ratings):
    table = counts_table(ratings, categories=["z", "y", "x", "w"])
    assert list(table.columns) == ["z", "y", "x", "w"]
    assert table["w"].sum() == 0


def test_counts_table_accepts_composite_items_and_skips_missing_categories():
    frame = pd.DataFrame(
        {
            "item": ["c1", "c1", "c1", "c1"],
            "sentence": [0, 0, 1, 1],
            "rater": ["a", "b", "a", "b"],
            "value": [True, False, True, None],
        }
    )
    table = counts_table(frame, item=["item", "sentence"], category="value")
    assert table.loc[("c1", 0)].tolist() == [1, 1]
    assert table.loc[("c1", 1)].tolist() == [0, 1]


def test_counts_table_feeds_fleiss_kappa():
    rows = [
        (item, f"r{rater}", category)
        for item, row in enumerate(FLEISS_EXAMPLE)
        for category, count in enumerate(row)
        for rater in range(count)
    ]
    # Rater ids only need to be unique within an item for the counts to come out right.
    frame = pd.DataFrame(rows, columns=["item", "rater", "category"])
    frame["rater"] = frame.groupby("item").cumcount()
    table = counts_table(frame, categories=range(5))
    assert table.to_numpy().tolist() == FLEISS_EXAMPLE
    assert fleiss_kappa(table) == pytest.approx(0.210, abs=5e-4)


def test_counts_table_rejects_a_rater_rating_an_item_twice(ratings):
    doubled = pd.concat([ratings, ratings.iloc[[0]]])
    with pytest.raises(ValueError, match="more than once"):
        counts_table(doubled)


def test_counts_table_rejects_missing_columns(ratings):
    with pytest.raises(ValueError, match="lack the column"):
        counts_table(ratings.drop(columns="rater"))


def test_counts_table_rejects_ratings_without_an_item(ratings):
    ratings.loc[0, "item"] = None
    with pytest.raises(ValueError, match="item and a rater"):
        counts_table(ratings)


def test_counts_table_rejects_undeclared_categories(ratings):
    with pytest.raises(ValueError, match="not in `categories`"):
        counts_table(ratings, categories=["x", "y"])


def test_counts_table_rejects_something_other_than_a_data_frame():
    with pytest.raises(ValueError, match="DataFrame"):
        counts_table([("i", "r", "x")])


def test_counts_table_of_no_ratings_is_an_empty_table(ratings):
    table = counts_table(ratings.iloc[:0], categories=["x", "y"])
    assert table.shape == (0, 2)


def test_pairwise_cohen_kappa_uses_only_shared_items(ratings):
    pairs = pairwise_cohen_kappa(ratings).set_index(["rater_a", "rater_b"])
    assert list(pairs.index) == [("a", "b"), ("a", "c"), ("b", "c")]
    # a and b share items 1, 2, 3, 5: a = x, y, x, z and b = x, y, y, x.
    assert pairs.loc[("a", "b"), "n"] == 4
    assert pairs.loc[("a", "b"), "kappa"] == pytest.approx(
        cohen_kappa(["x", "y", "x", "z"], ["x", "y", "y", "x"])
    )
    assert pairs.loc[("a", "c"), "n"] == 3
    assert pairs.loc[("b", "c"), "kappa"] == pytest.approx(
        cohen_kappa(["x", "y", "x"], ["y", "y", "y"])
    )


def test_pairwise_cohen_kappa_leaves_out_pairs_without_shared_items():
    frame = pd.DataFrame({"item": [1, 1, 2], "rater": ["a", "b", "c"], "category": ["x", "y", "x"]})
    pairs = pairwise_cohen_kappa(frame)
    assert pairs[["rater_a", "rater_b"]].values.tolist() == [["a", "b"]]


def test_pairwise_cohen_kappa_of_no_ratings_is_empty(ratings):
    assert pairwise_cohen_kappa(ratings.iloc[:0]).empty


def test_agreement_with_majority_excludes_tied_and_single_rater_items(ratings):
    result = agreement_with_majority(ratings).set_index("rater")
    # Item 1: x wins (a, b agree; c not). Item 2: y, all agree. Item 3 (x vs y) and
    # item 5 (x, y, z) are ties. Item 4 has one rater.
    assert result.loc["a"].to_dict() == {"n": 2, "agree": 2, "share": 1.0, "tied": 2}
    assert result.loc["b"].to_dict() == {"n": 2, "agree": 2, "share": 1.0, "tied": 2}
    assert result.loc["c"].to_dict() == {"n": 2, "agree": 1, "share": 0.5, "tied": 1}


def test_agreement_with_majority_share_is_nan_for_a_rater_with_only_ties():
    frame = pd.DataFrame({"item": [1, 1], "rater": ["a", "b"], "category": ["x", "y"]})
    result = agreement_with_majority(frame).set_index("rater")
    assert result.loc["a", "n"] == 0
    assert result.loc["a", "tied"] == 1
    assert math.isnan(result.loc["a", "share"])


def test_agreement_with_majority_rejects_double_ratings(ratings):
    with pytest.raises(ValueError, match="more than once"):
        agreement_with_majority(pd.concat([ratings, ratings.iloc[[3]]]))
