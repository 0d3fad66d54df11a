"""Which items an attempt asks and when a round's gold may be shown (pure rules, no database)."""

import random

from annotation.round_draws import draw_items, fresh_left, per_attempt_size, review_open


def test_a_retry_asks_items_not_asked_before_while_the_pool_has_them():
    pool = [1, 2, 3, 4, 5, 6]
    rng = random.Random(3)
    first = draw_items(pool, 2, [], rng)
    second = draw_items(pool, 2, [first], rng)
    third = draw_items(pool, 2, [first, second], rng)
    assert len(set(first + second + third)) == 6
    assert fresh_left(pool, [first, second, third]) == 0


def test_a_small_pool_tops_up_with_the_items_asked_longest_ago():
    pool = [1, 2, 3]
    assert draw_items(pool, 2, [[1, 2]], random.Random(1)) == [3, 1]
    assert draw_items(pool, 3, [[2, 3, 1]], random.Random(1)) == [2, 3, 1]
    # Items no longer in the pool (the researcher changed it) are never asked.
    assert draw_items([1, 2], 2, [[9, 1]], random.Random(1)) == [2, 1]


def test_per_attempt_size_is_the_setting_within_the_pool():
    assert per_attempt_size(4, None) == 4
    assert per_attempt_size(4, 2) == 2
    assert per_attempt_size(2, 5) == 2


def test_gold_is_shown_after_a_failed_attempt_only_if_every_attempt_left_gets_fresh_items():
    shown = {"show_gold": True, "passed": False, "per_attempt": 2}
    assert review_open(**shown, attempts_left=1, fresh=2) is True
    assert review_open(**shown, attempts_left=1, fresh=1) is False
    assert review_open(**shown, attempts_left=2, fresh=2) is False
    assert review_open(**shown, attempts_left=0, fresh=0) is True  # no attempt left
    assert review_open(**{**shown, "passed": True}, attempts_left=1, fresh=0) is True
    assert review_open(**{**shown, "show_gold": False}, attempts_left=0, fresh=9) is False
    assert review_open(**{**shown, "passed": None}, attempts_left=0, fresh=9) is False


def test_an_attempt_in_progress_keeps_the_labels_hidden_if_it_repeats_a_caption():
    shown = {"show_gold": True, "passed": False, "per_attempt": 2}
    # The last attempt is running: "no attempt left" no longer opens the labels.
    assert review_open(**shown, attempts_left=0, fresh=0, retry_repeats=True) is False
    assert review_open(**shown, attempts_left=0, fresh=0, retry_repeats=False) is True
    assert review_open(**shown, attempts_left=1, fresh=0, retry_repeats=False) is False
