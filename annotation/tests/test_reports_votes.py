"""The report's majority votes, counted on the marks matrix, equal majority_vote on the long frame."""

import numpy as np
import pandas as pd
import pytest

from analysis.captions import majority_vote
from annotation.selectors.agreement import LabelDecisions
from annotation.services.reports import votes_frame
from annotation.services.reports.counts import SentenceLabels, sentence_counts
from annotation.services.reports.methods import majority_estimates, method_aggregate

KEYS = ["value_error", "label_error", "trend_error"]


def _decisions(seed: int) -> LabelDecisions:
    """Items with 1-4 raters per sentence (ties included), rows in no particular order."""
    rng = np.random.default_rng(seed)
    rows = [
        (item, sentence, rater)
        for item in (7, 3, 12)
        for sentence in range(int(rng.integers(1, 4)))
        for rater in rng.choice([11, 5, 40, 9], size=int(rng.integers(1, 5)), replace=False)
    ]
    rng.shuffle(rows)
    item, sentence, rater = (np.array(column) for column in zip(*rows, strict=True))
    return LabelDecisions(
        categories=KEYS,
        item=item.astype(np.int64),
        sentence=sentence.astype(np.int32),
        rater=rater.astype(np.int64),
        marks=rng.random((len(rows), len(KEYS))) < 0.5,
    )


@pytest.mark.parametrize("tie", ["negative", "positive"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_it_counts_the_same_votes_as_majority_vote_on_the_long_frame(tie, seed):
    decisions = _decisions(seed)

    counted = votes_frame(decisions, tie=tie)

    pd.testing.assert_frame_equal(counted, majority_vote(decisions.frame(), tie=tie))
    assert (counted["n_raters"] < 5).all() and counted["n_raters"].nunique() > 1


def test_it_still_rejects_a_rater_deciding_a_sentence_twice():
    decisions = _decisions(1)
    twice = LabelDecisions(
        categories=KEYS,
        item=np.r_[decisions.item, decisions.item[:1]],
        sentence=np.r_[decisions.sentence, decisions.sentence[:1]],
        rater=np.r_[decisions.rater, decisions.rater[:1]],
        marks=np.r_[decisions.marks, decisions.marks[:1]],
    )

    with pytest.raises(ValueError, match="more than once"):
        votes_frame(twice, tie="negative")


@pytest.mark.parametrize("tie", ["negative", "positive"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_majority_read_off_the_counts_equals_the_majority_method(tie, seed):
    decisions = _decisions(seed)
    aggregated = method_aggregate(decisions, method="majority", tie=tie)
    expected = SentenceLabels.from_frame(aggregated.frame, KEYS)

    read_off = sentence_counts(decisions).labels(tie)

    np.testing.assert_array_equal(read_off.code, expected.code)
    np.testing.assert_array_equal(read_off.value, expected.value)
    np.testing.assert_array_equal(read_off.p_positive, expected.p_positive)
    pd.testing.assert_frame_equal(
        majority_estimates(decisions), aggregated.estimates, check_dtype=False
    )
