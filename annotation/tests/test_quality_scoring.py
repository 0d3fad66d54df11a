"""Scoring against gold over (sentence, category) decisions, checked by hand."""

import pytest

from annotation.assignment.strategy import controls_ahead
from annotation.services.quality.scoring import score_labels, score_many

KEYS = ["v", "l", "t"]


def test_a_perfect_answer_scores_one_on_both_rules():
    score = score_labels([["v"], []], [["v"], []], KEYS)
    assert (score.accuracy, score.f1) == (1.0, 1.0)


def test_the_hand_worked_example():
    # 2 sentences x 3 categories = 6 decisions.
    # gold:   s1 {v, t}  s2 {}
    # answer: s1 {v}     s2 {l}
    # s1: v TP, l TN, t FN; s2: v TN, l FP, t TN -> agree 4/6, TP 1, FP 1, FN 1
    # F1 = 2*1 / (2*1 + 1 + 1) = 0.5
    score = score_labels([["v"], ["l"]], [["v", "t"], []], KEYS)
    assert (score.tp, score.fp, score.fn, score.agree) == (1, 1, 1, 4)
    assert score.accuracy == pytest.approx(4 / 6)
    assert score.f1 == pytest.approx(0.5)
    assert score.value("f1") == pytest.approx(0.5)
    assert score.value("accuracy") == pytest.approx(4 / 6)


def test_pressing_nothing_has_high_accuracy_but_zero_f1():
    # The reason F1 is the default rule: errors are sparse.
    score = score_labels([[], [], []], [["v"], [], []], KEYS)
    assert score.accuracy == pytest.approx(8 / 9)
    assert score.f1 == 0.0


def test_no_errors_on_either_side_is_a_perfect_f1():
    assert score_labels([[]], [[]], KEYS).f1 == 1.0


def test_several_items_pool_their_decisions():
    # item 1: TP 1 (agree 3/3); item 2: FP 2 (agree 1/3) -> F1 = 2 / (2 + 2) = 0.5, acc 4/6
    score = score_many([([["v"]], [["v"]]), ([["l", "t"]], [[]])], KEYS)
    assert score.f1 == pytest.approx(0.5)
    assert score.accuracy == pytest.approx(4 / 6)


def test_a_sentence_count_mismatch_is_refused():
    with pytest.raises(ValueError):
        score_labels([[]], [[], []], KEYS)


def test_a_zero_rate_gives_no_controls():
    assert controls_ahead(taken=100, given=0, rate=0.0, ordinary_left=50, unseen=10) == 0
