"""The adaptive overlap rule as plain data in, decisions out: no database, no Django."""

from __future__ import annotations

import itertools

import pytest

from analysis.posterior import label_set_posteriors
from annotation.assignment.strategy import (
    ADAPTIVE,
    CONFIDENCE,
    DISAGREEMENT,
    Overlap,
    disputed,
    labels_differ,
    left_to_collect,
    uncertain,
    wants_more,
)

FIXED3 = Overlap(k=3)
ADAPT = Overlap(policy=ADAPTIVE, k_min=2, k_max=4, rule=DISAGREEMENT)
CONF = Overlap(policy=ADAPTIVE, k_min=2, k_max=4, rule=CONFIDENCE, threshold=0.1)


@pytest.mark.parametrize(
    ("overlap", "filled", "submitted", "is_disputed", "expected"),
    [
        pytest.param(FIXED3, 0, 0, False, True, id="fixed-empty"),
        pytest.param(FIXED3, 2, 1, True, True, id="fixed-short-of-k"),
        pytest.param(FIXED3, 3, 3, True, False, id="fixed-full-even-if-disputed"),
        pytest.param(ADAPT, 0, 0, False, True, id="adaptive-empty"),
        pytest.param(ADAPT, 1, 0, False, True, id="adaptive-below-k-min"),
        pytest.param(ADAPT, 2, 1, False, False, id="adaptive-k-min-held"),
        pytest.param(ADAPT, 2, 2, False, False, id="adaptive-settled"),
        pytest.param(ADAPT, 2, 2, True, True, id="adaptive-disputed-grows"),
        pytest.param(ADAPT, 3, 2, True, False, id="adaptive-one-more-at-a-time"),
        pytest.param(ADAPT, 3, 3, True, True, id="adaptive-still-disputed"),
        pytest.param(ADAPT, 3, 3, False, False, id="adaptive-settled-by-third"),
        pytest.param(ADAPT, 4, 4, True, False, id="adaptive-never-past-k-max"),
        pytest.param(
            Overlap(policy=ADAPTIVE, k_min=3, k_max=3, rule=DISAGREEMENT),
            3,
            3,
            True,
            False,
            id="min=max",
        ),
    ],
)
def test_which_items_want_another_holder(overlap, filled, submitted, is_disputed, expected):
    assert wants_more(overlap, filled=filled, submitted=submitted, disputed=is_disputed) is expected


@pytest.mark.parametrize(
    ("overlap", "submitted", "is_disputed", "expected"),
    [
        (FIXED3, 0, False, (3, 3)),
        (FIXED3, 2, True, (1, 1)),
        (FIXED3, 3, False, (0, 0)),
        (FIXED3, 4, False, (0, 0)),  # k lowered below what came in
        (ADAPT, 0, False, (2, 4)),
        (ADAPT, 1, False, (1, 3)),
        (ADAPT, 2, False, (0, 0)),
        (ADAPT, 2, True, (1, 2)),
        (ADAPT, 3, True, (1, 1)),
        (ADAPT, 4, True, (0, 0)),
    ],
)
def test_label_sets_left_to_collect_committed_and_at_most(
    overlap, submitted, is_disputed, expected
):
    assert left_to_collect(overlap, submitted=submitted, disputed=is_disputed) == expected


A = [[], ["trend"]]
B = [[], ["trend", "value"]]


@pytest.mark.parametrize(
    ("label_sets", "expected"),
    [
        ([], False),
        ([A], False),
        ([A, A], False),
        ([A, [[], ["trend"]]], False),
        ([A, B], True),
        ([A, A, B], True),
        ([[["x", "y"]], [["y", "x"]]], False),  # order within a sentence does not matter
        ([[["x"], []], [[], ["x"]]], True),  # same categories on different sentences
    ],
)
def test_label_sets_differ_on_any_category_of_any_sentence(label_sets, expected):
    assert labels_differ(label_sets) is expected


@pytest.mark.parametrize(
    ("posteriors", "threshold", "expected"),
    [
        ([], 0.1, False),
        ([0.05, 0.95], 0.1, False),
        ([0.05, 0.5], 0.1, True),
        ([0.1, 0.9], 0.1, False),  # on the threshold counts as decided
        ([0.11], 0.1, True),
        ([0.3], 0.25, True),
        ([0.3], 0.3, False),
    ],
)
def test_a_posterior_between_threshold_and_its_complement_is_uncertain(
    posteriors, threshold, expected
):
    assert uncertain(posteriors, threshold) is expected


@pytest.mark.parametrize(
    ("overlap", "label_sets", "posteriors", "expected"),
    [
        (FIXED3, [A, B], [0.5], False),  # fixed k never disputes
        (ADAPT, [A], [], False),  # below k_min nothing is decided yet
        (ADAPT, [A, B], [], True),
        (ADAPT, [A, A], [0.5], False),  # the disagreement rule ignores posteriors
        (CONF, [A, B], [0.02, 0.97], False),  # they differ, but the model is sure
        (CONF, [A, A], [0.02, 0.5], True),
        (CONF, [A], [0.5], False),
    ],
)
def test_an_item_is_disputed_by_the_projects_rule(overlap, label_sets, posteriors, expected):
    assert disputed(overlap, label_sets, posteriors) is expected


def test_the_default_rule_is_confidence_at_0_3():
    # The benchmark's figures (README): 0.1 and the disagreement rule spend more than k = 3.
    assert (Overlap().rule, Overlap().threshold) == (CONFIDENCE, 0.3)


def test_under_majority_vote_a_threshold_below_a_third_disputes_as_disagreement_does():
    """Vote shares of two or three label sets are 0, 1/3, 1/2, 2/3 or 1: only unanimity is
    outside (0.3, 0.7), so the confidence rule then asks exactly when the label sets differ."""
    confidence = Overlap(policy=ADAPTIVE, k_min=2, k_max=4, rule=CONFIDENCE, threshold=0.3)
    options = [[[]], [["x"]], [["y"]], [["x", "y"]]]
    for size in (2, 3):
        for combo in itertools.product(options, repeat=size):
            sets = list(enumerate(combo))
            shares = label_set_posteriors(sets, ["x", "y"], method="majority", estimates={})
            assert disputed(confidence, list(combo), shares) is disputed(ADAPT, list(combo))
