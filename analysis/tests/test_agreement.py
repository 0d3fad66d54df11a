import itertools
import math

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats import inter_rater

from analysis.agreement import (
    cohen_kappa,
    fleiss_kappa,
    gwet_ac1,
    krippendorff_alpha,
    majority_agreement,
)
from analysis.tests.agreement_data import FLEISS_EXAMPLE

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C:
# 4 observers x 12 units, values 1-5, None where an observer gave no value.
N = None
KRIPPENDORFF_EXAMPLE = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],
    [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N],
]


def reference_fleiss(table):
    """Fleiss' kappa written out term by term, as in Fleiss (1971)."""
    n_items = len(table)
    n_raters = sum(table[0])
    n_categories = len(table[0])
    p_bar = 0.0
    for row in table:
        p_bar += (sum(c * c for c in row) - n_raters) / (n_raters * (n_raters - 1))
    p_bar /= n_items
    p_e = 0.0
    for j in range(n_categories):
        p_j = sum(row[j] for row in table) / (n_items * n_raters)
        p_e += p_j * p_j
    return p_bar, p_e, (p_bar - p_e) / (1 - p_e)


def reference_gwet(table):
    """Gwet's (2008) multi-rater AC1 written out item by item."""
    q = len(table[0])
    totals = [sum(row) for row in table]
    paired = [(row, r) for row, r in zip(table, totals, strict=True) if r >= 2]
    p_a = sum(sum(c * (c - 1) for c in row) / (r * (r - 1)) for row, r in paired) / len(paired)
    pi = [
        sum(row[k] / r for row, r in zip(table, totals, strict=True)) / len(table) for k in range(q)
    ]
    p_e = sum(p * (1 - p) for p in pi) / (q - 1)
    return p_a, p_e, (p_a - p_e) / (1 - p_e)


def random_counts(rng, n_items, n_raters, n_categories):
    # Item-specific category probabilities give tables with real, uneven agreement.
    probabilities = rng.dirichlet(np.full(n_categories, 0.6), size=n_items)
    return np.array([rng.multinomial(n_raters, p) for p in probabilities])


def counts_to_reliability_data(table):
    """Coders x units data whose counts table is ``table`` (complete data)."""
    columns = []
    for row in table:
        columns.append([category for category, count in enumerate(row) for _ in range(count)])
    return np.array(columns).T


# --- Fleiss' kappa ---------------------------------------------------------------------------------


def test_fleiss_kappa_reproduces_the_published_example():
    assert fleiss_kappa(FLEISS_EXAMPLE) == pytest.approx(0.210, abs=5e-4)


def test_the_published_example_has_the_published_intermediate_terms():
    p_bar, p_e, kappa = reference_fleiss(FLEISS_EXAMPLE)
    assert p_bar == pytest.approx(0.378, abs=5e-4)
    assert p_e == pytest.approx(0.213, abs=5e-4)
    assert fleiss_kappa(FLEISS_EXAMPLE) == pytest.approx(kappa, abs=1e-12)


def test_fleiss_kappa_accepts_a_data_frame():
    frame = pd.DataFrame(FLEISS_EXAMPLE, columns=list("abcde"))
    assert fleiss_kappa(frame) == pytest.approx(fleiss_kappa(FLEISS_EXAMPLE), abs=1e-15)


@pytest.mark.parametrize("seed", range(12))
def test_fleiss_kappa_matches_statsmodels_and_a_direct_computation_on_random_tables(seed):
    rng = np.random.default_rng(seed)
    table = random_counts(
        rng, int(rng.integers(2, 60)), int(rng.integers(2, 12)), int(rng.integers(2, 7))
    )
    ours = fleiss_kappa(table)
    assert ours == pytest.approx(inter_rater.fleiss_kappa(table, method="fleiss"), abs=1e-12)
    assert ours == pytest.approx(reference_fleiss(table.tolist())[2], abs=1e-12)


def test_fleiss_kappa_is_one_for_perfect_agreement_across_categories():
    assert fleiss_kappa([[3, 0], [0, 3], [3, 0]]) == pytest.approx(1.0)


def test_fleiss_kappa_is_nan_when_every_rating_falls_in_one_category():
    assert math.isnan(fleiss_kappa([[4, 0], [4, 0]]))


@pytest.mark.parametrize(
    ("counts", "message"),
    [
        ([], "empty|2-D"),
        ([[]], "empty"),
        ([[1, 2], [2, 2]], "same number of raters"),
        ([[1, 0], [0, 1]], "at least 2 raters"),
        ([[3, -1], [1, 1]], "negative"),
        ([[1.5, 0.5], [1, 1]], "whole numbers"),
        ([[1, float("nan")], [1, 1]], "NaN"),
        ([["a", "b"], [1, 1]], "numbers"),
        ([[1, 2], [3]], "rectangular"),
        ([1, 2, 3], "2-D"),
    ],
)
def test_fleiss_kappa_rejects_invalid_tables(counts, message):
    with pytest.raises(ValueError, match=message):
        fleiss_kappa(counts)


# --- majority agreement ----------------------------------------------------------------------------


def test_majority_agreement_is_the_mean_share_in_the_largest_category():
    # 3/3, 2/3, 2/4 (a tie still counts its largest category) and 1/1.
    counts = [[3, 0, 0], [1, 2, 0], [2, 2, 0], [0, 0, 1]]
    expected = (1 + 2 / 3 + 2 / 4 + 1) / 4
    assert majority_agreement(counts) == pytest.approx(expected)


def test_majority_agreement_on_the_fleiss_example():
    shares = [max(row) / 14 for row in FLEISS_EXAMPLE]
    assert majority_agreement(FLEISS_EXAMPLE) == pytest.approx(sum(shares) / len(shares))


@pytest.mark.parametrize(
    ("counts", "message"),
    [
        ([], "empty|2-D"),
        ([[0, 0], [1, 1]], "at least 1 rater"),
        ([[2, -1]], "negative"),
        ([[0.5, 1]], "whole numbers"),
    ],
)
def test_majority_agreement_rejects_invalid_tables(counts, message):
    with pytest.raises(ValueError, match=message):
        majority_agreement(counts)


# --- Krippendorff's alpha --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("level", "published"),
    [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849), ("ratio", 0.797)],
)
def test_krippendorff_alpha_reproduces_krippendorff_2011(level, published):
    assert krippendorff_alpha(KRIPPENDORFF_EXAMPLE, level) == pytest.approx(published, abs=5e-4)


def test_nominal_alpha_matches_a_coincidence_matrix_computed_by_hand():
    # Krippendorff (2011): alpha = 1 - (n - 1) * sum_{c != k} o_ck / sum_{c != k} n_c n_k.
    units = [
        [v for v in column if v is not None] for column in zip(*KRIPPENDORFF_EXAMPLE, strict=True)
    ]
    units = [u for u in units if len(u) >= 2]
    values = sorted({v for u in units for v in u})
    o = {(c, k): 0.0 for c in values for k in values}
    for u in units:
        for i, j in itertools.permutations(range(len(u)), 2):
            o[u[i], u[j]] += 1 / (len(u) - 1)
    n_c = {c: sum(o[c, k] for k in values) for c in values}
    n = sum(n_c.values())
    observed = sum(o[c, k] for c in values for k in values if c != k)
    expected = sum(n_c[c] * n_c[k] for c in values for k in values if c != k)
    assert n == 40
    by_hand = 1 - (n - 1) * observed / expected
    assert krippendorff_alpha(KRIPPENDORFF_EXAMPLE) == pytest.approx(by_hand, abs=1e-12)


def test_nominal_alpha_accepts_labels_and_nan_in_a_data_frame():
    names = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}
    labelled = pd.DataFrame([[names.get(v, np.nan) for v in row] for row in KRIPPENDORFF_EXAMPLE])
    assert krippendorff_alpha(labelled) == pytest.approx(0.743, abs=5e-4)


def test_alpha_is_nan_when_all_pairable_values_agree_on_one_value():
    assert math.isnan(krippendorff_alpha([[1, 1, None], [1, 1, 2]]))


@pytest.mark.parametrize("seed", range(6))
def test_nominal_alpha_and_fleiss_kappa_follow_their_exact_relation_on_complete_data(seed):
    # With complete data, D_o = 1 - P_bar and D_e = n (1 - P_e) / (n - 1) for n = N m values,
    # so alpha = 1 - (1 - 1/n)(1 - kappa): the two converge as the number of values grows.
    rng = np.random.default_rng(100 + seed)
    n_items, n_raters = int(rng.integers(5, 40)), int(rng.integers(2, 8))
    table = random_counts(rng, n_items, n_raters, int(rng.integers(2, 6)))
    kappa = fleiss_kappa(table)
    alpha = krippendorff_alpha(counts_to_reliability_data(table), "nominal")
    n_values = n_items * n_raters
    assert alpha == pytest.approx(1 - (1 - 1 / n_values) * (1 - kappa), abs=1e-12)


def test_nominal_alpha_converges_to_fleiss_kappa_for_many_items():
    rng = np.random.default_rng(7)
    table = random_counts(rng, 3000, 5, 4)
    kappa = fleiss_kappa(table)
    alpha = krippendorff_alpha(counts_to_reliability_data(table), "nominal")
    assert abs(alpha - kappa) < 1e-4


@pytest.mark.parametrize(
    ("data", "level", "message"),
    [
        (KRIPPENDORFF_EXAMPLE, "categorical", "unknown level"),
        ([[1, None, None], [None, 2, None]], "nominal", "no pairable values"),
        ([[1, 2, 3]], "nominal", "no pairable values"),
        ([], "nominal", "2-D"),
        ([1, 2, 3], "nominal", "2-D"),
        ([["low", "high"], ["low", "low"]], "ordinal", "numbers"),
        ([[-1, 2], [1, 2]], "ratio", "negative"),
    ],
)
def test_krippendorff_alpha_rejects_invalid_input(data, level, message):
    with pytest.raises(ValueError, match=message):
        krippendorff_alpha(data, level)


# --- Cohen's kappa ---------------------------------------------------------------------------------


def test_cohen_kappa_reproduces_the_fifty_proposals_example():
    # Wikipedia, "Cohen's kappa": yes/yes 20, yes/no 5, no/yes 10, no/no 15.
    # p_o = 35/50 = 0.7; p_e = 0.5 * 0.6 + 0.5 * 0.4 = 0.5; kappa = 0.2 / 0.5 = 0.4.
    a = ["yes"] * 25 + ["no"] * 25
    b = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    assert cohen_kappa(a, b) == pytest.approx(0.4)


def test_cohen_kappa_drops_positions_missing_for_either_rater():
    a = ["yes"] * 25 + ["no"] * 25 + [None, "yes", float("nan")]
    b = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15 + ["no", np.nan, "yes"]
    assert cohen_kappa(a, b) == pytest.approx(0.4)


@pytest.mark.parametrize("seed", range(10))
def test_cohen_kappa_matches_the_direct_formula_and_statsmodels(seed):
    rng = np.random.default_rng(200 + seed)
    n, k = int(rng.integers(5, 200)), int(rng.integers(2, 6))
    a = rng.integers(0, k, size=n)
    # The second rater copies the first about half the time, so kappa is well away from 0.
    b = np.where(rng.random(n) < 0.5, a, rng.integers(0, k, size=n))
    p_o = np.mean(a == b)
    p_e = sum(np.mean(a == c) * np.mean(b == c) for c in range(k))
    expected = (p_o - p_e) / (1 - p_e)
    table = pd.crosstab(a, b).reindex(index=range(k), columns=range(k), fill_value=0)
    assert cohen_kappa(a, b) == pytest.approx(expected, abs=1e-12)
    assert cohen_kappa(a, b) == pytest.approx(
        inter_rater.cohens_kappa(table.to_numpy()).kappa, abs=1e-12
    )


def test_cohen_kappa_is_nan_when_both_raters_use_one_shared_label():
    assert math.isnan(cohen_kappa(["x", "x"], ["x", "x"]))


def test_cohen_kappa_is_zero_when_the_raters_use_disjoint_single_labels():
    assert cohen_kappa(["x", "x"], ["y", "y"]) == 0.0


@pytest.mark.parametrize(
    ("a", "b", "message"),
    [
        (["x", "y"], ["x"], "same length"),
        ([], [], "no item"),
        ([None, "x"], ["x", None], "no item"),
    ],
)
def test_cohen_kappa_rejects_invalid_input(a, b, message):
    with pytest.raises(ValueError, match=message):
        cohen_kappa(a, b)


# --- Gwet's AC1 ------------------------------------------------------------------------------------


def test_gwet_ac1_for_two_raters_matches_the_two_by_two_formula():
    # Two raters, yes/no: both yes 40, yes/no 9, no/yes 6, both no 45 (n = 100).
    # Gwet (2008): p_a = (40 + 45) / 100 = 0.85; pi_yes = ((40 + 9) + (40 + 6)) / 200 = 0.475;
    # p_e = 2 * 0.475 * 0.525 = 0.49875; AC1 = (0.85 - 0.49875) / (1 - 0.49875) = 0.700748...
    counts = [[2, 0]] * 40 + [[1, 1]] * (9 + 6) + [[0, 2]] * 45
    p_a, pi_yes = 0.85, 0.475
    p_e = 2 * pi_yes * (1 - pi_yes)
    assert gwet_ac1(counts) == pytest.approx((p_a - p_e) / (1 - p_e), abs=1e-12)
    assert gwet_ac1(counts) == pytest.approx(0.700748, abs=1e-6)


def test_gwet_ac1_stays_high_where_kappa_collapses_under_high_agreement():
    # The kappa paradox Gwet's AC1 was designed for: 95% agreement on a rare category.
    counts = [[2, 0]] * 95 + [[1, 1]] * 5
    assert fleiss_kappa(counts) < 0
    assert gwet_ac1(counts) > 0.9


def test_gwet_ac1_reproduces_the_four_rater_example_with_missing_ratings():
    # Gwet's irrCAC reference output for Krippendorff's 4 x 12 data (cac.raw4raters):
    # p_a = 0.818, p_e = 0.190, AC1 = 0.775. Unit 12 has one rating: it shapes pi_k only.
    categories = [1, 2, 3, 4, 5]
    counts = [
        [sum(1 for v in column if v == c) for c in categories]
        for column in zip(*KRIPPENDORFF_EXAMPLE, strict=True)
    ]
    p_a, p_e, ac1 = reference_gwet(counts)
    assert p_a == pytest.approx(0.818, abs=5e-4)
    assert p_e == pytest.approx(0.190, abs=5e-4)
    assert gwet_ac1(counts) == pytest.approx(ac1, abs=1e-12)
    assert gwet_ac1(counts) == pytest.approx(0.775, abs=5e-4)


@pytest.mark.parametrize("seed", range(8))
def test_gwet_ac1_matches_a_direct_computation_on_random_tables(seed):
    rng = np.random.default_rng(300 + seed)
    table = random_counts(
        rng, int(rng.integers(2, 50)), int(rng.integers(2, 9)), int(rng.integers(2, 6))
    )
    assert gwet_ac1(table) == pytest.approx(reference_gwet(table.tolist())[2], abs=1e-12)


def test_gwet_ac1_counts_unused_categories():
    used_only = gwet_ac1([[2, 0], [1, 1], [0, 2]])
    with_spare = gwet_ac1([[2, 0, 0], [1, 1, 0], [0, 2, 0]])
    assert used_only != pytest.approx(with_spare)


@pytest.mark.parametrize(
    ("counts", "message"),
    [
        ([], "empty|2-D"),
        ([[2], [2]], "at least 2 categories"),
        ([[1, 0], [0, 1]], "rated by 2 or more"),
        ([[2, 0], [0, 0]], "at least 1 rater"),
        ([[2, -1], [1, 1]], "negative"),
        ([[1.5, 0.5]], "whole numbers"),
    ],
)
def test_gwet_ac1_rejects_invalid_tables(counts, message):
    with pytest.raises(ValueError, match=message):
        gwet_ac1(counts)
