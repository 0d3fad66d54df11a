import json

import krippendorff
import numpy as np
import pytest
from statsmodels.stats import inter_rater

from analysis.agreement import krippendorff_alpha
from analysis.decisions import binary_alpha, decision_statistics, slot_matrix

NAN = np.nan
# One decision over seven sentences, rated by four annotators a-d (NaN: did not rate).
# k = 3: the first four sentences have the full three raters.
BY_ANNOTATOR = np.array(
    [
        # s0   s1   s2   s3   s4   s5   s6
        [1.0, 0.0, 1.0, 1.0, 1.0, NAN, 1.0],  # a
        [1.0, 0.0, 1.0, 0.0, NAN, 1.0, 1.0],  # b
        [1.0, 0.0, 0.0, 0.0, NAN, NAN, 0.0],  # c
        [NAN, NAN, NAN, NAN, 0.0, NAN, 0.0],  # d
    ]
)
N_RATERS = (~np.isnan(BY_ANNOTATOR)).sum(axis=0)
N_POSITIVE = np.nansum(BY_ANNOTATOR, axis=0).astype(int)


def _gwet_ac1_by_hand(n_raters, n_positive):
    """Gwet (2008), multiple raters, q = 2 categories, written out sentence by sentence."""
    counts = [(n - p, p) for n, p in zip(n_raters, n_positive, strict=True)]
    agreement = [
        sum(r * (r - 1) for r in c) / (sum(c) * (sum(c) - 1)) for c in counts if sum(c) >= 2
    ]
    p_a = sum(agreement) / len(agreement)
    pi = [sum(c[k] / sum(c) for c in counts) / len(counts) for k in (0, 1)]
    p_e = sum(p * (1 - p) for p in pi) / (2 - 1)
    return (p_a - p_e) / (1 - p_e)


def test_the_slot_table_fills_each_sentences_ratings_from_the_top():
    table = slot_matrix(np.array([3, 2, 1, 0]), np.array([2, 0, 1, 0]))
    expected = np.array(
        [
            [1.0, 0.0, 1.0, NAN],
            [1.0, 0.0, NAN, NAN],
            [0.0, NAN, NAN, NAN],
        ]
    )
    np.testing.assert_array_equal(table, expected)


def test_the_slot_table_gives_the_same_alpha_as_one_row_per_annotator():
    paired = N_RATERS >= 2
    by_slot = krippendorff.alpha(
        reliability_data=slot_matrix(N_RATERS[paired], N_POSITIVE[paired]),
        level_of_measurement="nominal",
    )
    by_annotator = krippendorff.alpha(reliability_data=BY_ANNOTATOR, level_of_measurement="nominal")
    assert by_slot == pytest.approx(by_annotator)


def test_it_computes_each_coefficient_over_the_sentences_it_can_count():
    result = decision_statistics(N_RATERS, N_POSITIVE, k=3)
    full = N_RATERS == 3
    table = np.column_stack([N_RATERS - N_POSITIVE, N_POSITIVE])
    assert result["fleiss_kappa"] == pytest.approx(inter_rater.fleiss_kappa(table[full]))
    # Majority shares of s0..s3: 3/3, 3/3, 2/3, 2/3.
    assert result["majority_agreement"] == pytest.approx(5 / 6)
    assert result["krippendorff_alpha"] == pytest.approx(
        krippendorff.alpha(reliability_data=BY_ANNOTATOR, level_of_measurement="nominal")
    )
    assert result["gwet_ac1"] == pytest.approx(_gwet_ac1_by_hand(N_RATERS, N_POSITIVE))
    assert result["positive_share"] == pytest.approx(10 / 19)
    assert (result["sentences"], result["sentences_all"], result["raters"]) == (4, 6, 3)
    assert result["notes"] == []
    json.dumps(result, allow_nan=False)


def test_kappa_and_p_need_two_raters_per_item():
    result = decision_statistics(N_RATERS, N_POSITIVE, k=1)
    assert (result["fleiss_kappa"], result["majority_agreement"], result["sentences"]) == (
        None,
        None,
        0,
    )
    assert result["notes"] == ["Kappa and p need at least 2 annotators per item (k)."]
    # Alpha and AC1 do not depend on k.
    assert result["krippendorff_alpha"] is not None and result["gwet_ac1"] is not None


def test_unanimous_ratings_leave_kappa_undefined_and_say_so():
    result = decision_statistics(np.array([2, 2, 2]), np.array([0, 0, 0]), k=2)
    assert result["fleiss_kappa"] is None
    assert result["majority_agreement"] == 1.0
    assert result["notes"] == [
        "Kappa is undefined: every rating of the counted sentences is the same."
    ]
    assert result["positive_share"] == 0.0
    json.dumps(result, allow_nan=False)


def test_no_ratings_give_no_coefficients():
    result = decision_statistics(np.array([], dtype=int), np.array([], dtype=int), k=3)
    assert {key: result[key] for key in ("fleiss_kappa", "krippendorff_alpha", "gwet_ac1")} == {
        "fleiss_kappa": None,
        "krippendorff_alpha": None,
        "gwet_ac1": None,
    }
    assert result["positive_share"] is None
    assert (result["sentences"], result["sentences_all"]) == (0, 0)


def test_unequal_raters_take_kappa_from_the_first_k_min_and_alpha_ac1_from_all():
    from analysis.agreement import gwet_ac1
    from analysis.decisions import decision_statistics_unequal

    # Four sentences: two rated twice, two rated four times (adaptive k_min 2, k_max 4).
    n_raters = np.array([2, 2, 4, 4])
    n_positive = np.array([2, 0, 3, 1])
    # Of the four-rater sentences, the first two ratings were (1, 0) and (0, 1).
    first_raters = np.array([2, 2, 2, 2])
    first_positive = np.array([2, 0, 1, 1])
    got = decision_statistics_unequal(n_raters, n_positive, first_raters, first_positive, k_min=2)
    first_table = np.column_stack([first_raters - first_positive, first_positive])
    all_table = np.column_stack([n_raters - n_positive, n_positive])
    assert got["fleiss_kappa"] == pytest.approx(inter_rater.fleiss_kappa(first_table))
    assert got["gwet_ac1"] == pytest.approx(gwet_ac1(all_table))
    assert got["sentences"] == 4 and got["sentences_all"] == 4
    plain = decision_statistics(n_raters, n_positive, k=2)
    assert got["krippendorff_alpha"] == plain["krippendorff_alpha"]
    assert plain["sentences"] == 2  # exactly-k would have dropped the disputed sentences


@pytest.mark.parametrize("seed", range(6))
def test_binary_alpha_is_alpha_over_the_slots_to_the_last_bit(seed):
    rng = np.random.default_rng(seed)
    n_raters = rng.integers(2, 6, size=500)
    n_positive = rng.binomial(n_raters, [0.05, 0.2, 0.5, 0.9, 0.3, 0.7][seed])
    assert binary_alpha(n_raters, n_positive) == krippendorff_alpha(
        slot_matrix(n_raters, n_positive)
    )


def test_binary_alpha_of_one_value_throughout_is_nan():
    assert np.isnan(binary_alpha(np.array([2, 3]), np.array([0, 0])))
    assert np.isnan(binary_alpha(np.array([2, 3]), np.array([2, 3])))
