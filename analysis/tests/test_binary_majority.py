import numpy as np
import pandas as pd
import pytest

from analysis.agreement import agreement_with_majority
from analysis.binary_majority import binary_agreement_with_majority


def _random_ratings(seed: int, units: int = 400, raters: int = 6) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for unit in range(units):
        # 1 to 4 raters per unit: single-rater units, ties (2 or 4 raters) and clear majorities.
        chosen = rng.choice(raters, size=rng.integers(1, 5), replace=False)
        leaning = rng.random()
        for rater in chosen:
            rows.append((unit // 3, unit % 3, int(rater) + 10, bool(rng.random() < leaning)))
    return pd.DataFrame(rows, columns=["item", "sentence", "rater", "category"])


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_it_matches_agreement_with_majority_on_yes_no_ratings(seed):
    ratings = _random_ratings(seed)
    expected = agreement_with_majority(ratings, item=["item", "sentence"])
    unit = ratings["item"].to_numpy() * 3 + ratings["sentence"].to_numpy()
    found = binary_agreement_with_majority(unit, ratings["rater"], ratings["category"])
    assert (expected["tied"] > 0).any() and (expected["n"] > expected["agree"]).any()
    pd.testing.assert_frame_equal(found, expected, check_dtype=False)


def test_ties_and_single_ratings_are_left_out():
    # Unit 0: two yes, one no (majority yes). Unit 1: one yes, one no (tie). Unit 2: rated once.
    found = binary_agreement_with_majority(
        [0, 0, 0, 1, 1, 2], ["a", "b", "c", "a", "b", "c"], [True, True, False, True, False, True]
    ).set_index("rater")
    assert found.loc["a"].tolist() == [1, 1, 1.0, 1]
    assert found.loc["c"].tolist() == [1, 0, 0.0, 0]
    assert found.loc["b", "tied"] == 1


def test_no_ratings_give_an_empty_table():
    found = binary_agreement_with_majority([], [], [])
    assert found.empty and list(found.columns) == ["rater", "n", "agree", "share", "tied"]
