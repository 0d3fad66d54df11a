"""One item's posterior with fixed annotator rates, against hand-worked cases and brute force."""

import itertools
import math

import pytest

from analysis.posterior import label_set_posteriors, posterior_positive, vote_share


def test_two_agreeing_default_annotators_settle_a_sentence():
    # 0.5*0.8*0.8 / (0.5*0.8*0.8 + 0.5*0.2*0.2) = 0.64 / 0.68
    assert posterior_positive([("a", True), ("b", True)], {}, 0.5) == pytest.approx(0.64 / 0.68)
    assert posterior_positive([("a", True), ("b", False)], {}, 0.5) == pytest.approx(0.5)


def test_a_careful_annotator_outweighs_a_careless_one():
    rates = {"careful": (0.95, 0.95), "careless": (0.55, 0.5)}
    # 0.3*0.95*0.45 / (0.3*0.95*0.45 + 0.7*0.05*0.5)
    expected = 0.3 * 0.95 * 0.45 / (0.3 * 0.95 * 0.45 + 0.7 * 0.05 * 0.5)
    got = posterior_positive([("careful", True), ("careless", False)], rates, 0.3)
    assert got == pytest.approx(expected)
    assert got > 0.5


def test_it_matches_a_brute_force_joint_distribution():
    rates = {"a": (0.9, 0.7), "b": (0.6, 0.85), "c": (0.75, 0.75)}
    prior = 0.2
    for said in itertools.product([False, True], repeat=3):
        votes = list(zip("abc", said, strict=True))
        joint = {}
        for truth in (False, True):
            p = prior if truth else 1 - prior
            for who, v in votes:
                sens, spec = rates[who]
                p *= (sens if v else 1 - sens) if truth else (1 - spec if v else spec)
            joint[truth] = p
        assert posterior_positive(votes, rates, prior) == pytest.approx(
            joint[True] / (joint[True] + joint[False]), abs=1e-12
        )


def test_no_votes_leave_the_prior_and_extreme_rates_stay_finite():
    assert posterior_positive([], {}, 0.3) == pytest.approx(0.3)
    p = posterior_positive([("a", True)] * 50, {"a": (1.0, 1.0)}, 0.5)
    assert 0.5 < p <= 1 and math.isfinite(p)


def test_the_vote_share():
    assert vote_share([("a", True), ("b", False), ("c", True)]) == pytest.approx(2 / 3)
    assert vote_share([]) == 0.5


def test_label_set_posteriors_per_category_then_sentence():
    label_sets = [(1, [["a"], []]), (2, [["a", "b"], []])]
    estimates = {"categories": {"a": {"prior": 0.2, "rates": {"1": [0.9, 0.9], "2": [0.7, 0.95]}}}}
    got = label_set_posteriors(label_sets, ["a", "b"], method="dawid_skene", estimates=estimates)
    rates = {1: (0.9, 0.9), 2: (0.7, 0.95)}
    assert got == pytest.approx(
        [
            posterior_positive([(1, True), (2, True)], rates, 0.2),
            posterior_positive([(1, False), (2, False)], rates, 0.2),
            posterior_positive([(1, False), (2, True)], {}, 0.5),  # b: never fitted
            posterior_positive([(1, False), (2, False)], {}, 0.5),
        ]
    )
    shares = label_set_posteriors(label_sets, ["a", "b"], method="majority", estimates={})
    assert shares == [1.0, 0.0, 0.5, 0.0]
    assert label_set_posteriors([], ["a"], method="majority", estimates={}) == []
