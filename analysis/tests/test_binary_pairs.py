import math

import numpy as np
import pandas as pd
import pytest

from analysis.agreement import pairwise_cohen_kappa
from analysis.binary_pairs import binary_pairwise_kappa


def _random_ratings(seed: int) -> pd.DataFrame:
    """0 to 6 of 6 raters per unit; some units unanimous, so some pairs have kappa NaN."""
    rng = np.random.default_rng(seed)
    rows = []
    for unit in range(int(rng.integers(1, 60))):
        leaning = rng.choice([0.0, 0.1, 0.5, 1.0])
        for rater in rng.choice(6, size=int(rng.integers(0, 7)), replace=False):
            rows.append((unit, int(rater) * 7 + 3, bool(rng.random() < leaning)))
    return pd.DataFrame(rows, columns=["item", "rater", "category"])


@pytest.mark.parametrize("seed", range(40))
def test_it_gives_the_very_floats_of_pairwise_cohen_kappa(seed):
    ratings = _random_ratings(seed)
    expected = pairwise_cohen_kappa(ratings)
    found = binary_pairwise_kappa(ratings["item"], ratings["rater"], ratings["category"])
    assert found[["rater_a", "rater_b", "n"]].values.tolist() == (
        expected[["rater_a", "rater_b", "n"]].values.tolist()
    )
    for got, want in zip(found["kappa"], expected["kappa"], strict=True):
        assert got == want or (math.isnan(got) and math.isnan(want))


def test_a_worked_two_by_two_table():
    # a: yes yes yes no no no no no no no; b: yes yes no yes no no no no no no.
    # p_o = 8/10; p_e = (3*3 + 7*7) / 100 = 0.58; kappa = 0.22 / 0.42.
    a = [True] * 3 + [False] * 7
    b = [True, True, False, True] + [False] * 6
    found = binary_pairwise_kappa(list(range(10)) * 2, ["a"] * 10 + ["b"] * 10, a + b)
    assert found.to_dict("records") == [
        {"rater_a": "a", "rater_b": "b", "n": 10, "kappa": pytest.approx(0.22 / 0.42, abs=1e-15)}
    ]


def test_pairs_without_a_shared_unit_are_left_out_and_one_shared_value_is_nan():
    found = binary_pairwise_kappa([0, 0, 1, 2], [1, 2, 3, 3], [True, True, False, True])
    assert found["rater_a"].tolist() == [1] and found["rater_b"].tolist() == [2]
    assert math.isnan(found["kappa"].iloc[0])
    assert binary_pairwise_kappa([0], [1], [True]).empty
    assert binary_pairwise_kappa([], [], []).empty


def test_a_rater_twice_on_a_unit_is_refused():
    with pytest.raises(ValueError, match="more than once"):
        binary_pairwise_kappa([0, 0, 0], [1, 1, 2], [True, False, True])
