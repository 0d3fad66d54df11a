"""Which gold items an attempt at a round asks, and when a round's gold may be shown. No Django.

A round's gold items are a pool. Each attempt asks ``per_attempt`` of them:

1. items the annotator has never been asked in this round, in random order;
2. only when fewer of those are left than an attempt needs, items asked before,
   the longest ago first.

So a retry asks different items whenever the pool holds enough unseen ones
(``pool >= per_attempt x attempts``), and the researchers' labels of a failed
attempt can be shown without giving the retry away. When the pool is too small
for that, the labels stay hidden until the annotator passes the round or has no
attempt left (``review_open``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence


def per_attempt_size(pool: int, items_per_attempt: int | None) -> int:
    """Items one attempt asks: the round's setting, never more than the pool."""
    if not items_per_attempt:
        return pool
    return max(1, min(pool, items_per_attempt))


def fresh_left(pool: Sequence[int], asked: Sequence[Sequence[int]]) -> int:
    """How many items of ``pool`` no earlier attempt asked."""
    seen = {pk for attempt in asked for pk in attempt}
    return sum(1 for pk in pool if pk not in seen)


def draw_items(
    pool: Sequence[int], per_attempt: int, asked: Sequence[Sequence[int]], rng: random.Random
) -> list[int]:
    """The items (ids from ``pool``) the next attempt asks; ``asked`` lists earlier attempts' ids."""
    seen = {pk for attempt in asked for pk in attempt}
    fresh = [pk for pk in pool if pk not in seen]
    rng.shuffle(fresh)
    chosen = fresh[:per_attempt]
    if len(chosen) < per_attempt:
        # Least recently asked first: the oldest attempts' items, in their order.
        in_pool = set(pool)
        for attempt in asked:
            for pk in attempt:
                if pk in in_pool and pk not in chosen and len(chosen) < per_attempt:
                    chosen.append(pk)
    return chosen


def review_open(
    *,
    show_gold: bool,
    passed: bool | None,
    attempts_left: int,
    fresh: int,
    per_attempt: int,
    retry_repeats: bool | None = None,
) -> bool:
    """Whether an annotator may see the researchers' labels of their latest finished attempt.

    ``attempts_left`` counts the attempts not started yet and ``fresh`` the pool items
    no attempt has asked. ``retry_repeats`` is None when no attempt is in progress, else
    whether the one in progress asks an item an earlier attempt asked. The labels are
    shown once nothing is left to take, or when neither the attempt in progress nor any
    attempt left can ask an item the annotator has seen.
    """
    if not show_gold or passed is None:
        return False
    if retry_repeats is None and (passed or attempts_left <= 0):
        return True
    if retry_repeats:
        return False
    return fresh >= per_attempt * attempts_left
