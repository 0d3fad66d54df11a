"""The queue's assignment rule as plain data in, decisions out: no database, no Django."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from annotation.assignment.strategy import (
    DEFAULT,
    FULLEST_FIRST,
    RANDOM,
    STRATEGIES,
    Candidate,
    Key,
    Overlap,
    SlotRow,
    Strategy,
    choose,
    free_slot,
    sort_candidates,
    take_back_slot,
)

C = Candidate


@pytest.mark.parametrize(
    ("candidates", "expected"),
    [
        pytest.param(
            [C(1, filled=0), C(2, filled=2), C(3, filled=1)], [2, 3, 1], id="fullest-first"
        ),
        pytest.param(
            [C(1, filled=1, submitted=0), C(2, filled=1, submitted=1), C(3, filled=0, submitted=0)],
            [2, 1, 3],
            id="more-submitted-wins-a-tie",
        ),
        pytest.param(
            [C(1, filled=1, submitted=1, position=5), C(2, filled=1, submitted=1, position=2)],
            [2, 1],
            id="then-import-position",
        ),
        pytest.param([C(9, position=0), C(4, position=0)], [4, 9], id="then-primary-key"),
        pytest.param(
            [C(1, filled=0, submitted=0, position=0), C(2, filled=2, submitted=0, position=9)],
            [2, 1],
            id="fullness-beats-position",
        ),
        pytest.param(
            [C(1, filled=2, submitted=0), C(2, filled=1, submitted=1)],
            [1, 2],
            id="holders-count-before-submits",
        ),
        pytest.param([], [], id="nothing-open"),
    ],
)
def test_fullest_first_orders_candidates(candidates, expected):
    assert [c.pk for c in sort_candidates(candidates, FULLEST_FIRST.order)] == expected
    # The input order never matters: the order ends with the primary key.
    shuffled = list(reversed(candidates))
    assert [c.pk for c in sort_candidates(shuffled, FULLEST_FIRST.order)] == expected


def test_control_candidates_come_in_a_fresh_random_order():
    assert FULLEST_FIRST.control_order == (RANDOM,)
    candidates = [C(pk) for pk in range(1, 9)]
    firsts = set()
    for seed in range(40):
        ranked = sort_candidates(candidates, (RANDOM,), rng=random.Random(seed))
        assert sorted(c.pk for c in ranked) == list(range(1, 9))
        firsts.add(ranked[0].pk)
    assert len(firsts) > 4


@pytest.mark.parametrize(
    ("due", "ordinary", "control", "expected"),
    [
        (False, "item", "gold", ("item", False)),
        (True, "item", "gold", ("gold", True)),
        (True, "item", None, ("item", False)),  # no unseen control left: ordinary work
        (True, None, "gold", ("gold", True)),
        (False, None, "gold", (None, False)),  # a control only comes when one is due
        (True, None, None, (None, False)),
        (False, None, None, (None, False)),
    ],
)
def test_a_control_is_chosen_only_when_due_and_free(due, ordinary, control, expected):
    choice = choose(control_due=due, ordinary=ordinary, control=control)
    assert (choice.item, choice.control) == expected


H, F = True, False  # the row still holds its slot (leased or submitted) / it ended


TAKE_BACK_CASES = [
    # (the item's other rows, the lapsed lease's slot, k): the same outcome for both kinds.
    ([], 0, 3),  # nobody came: kept
    ([(1, H), (2, H)], 0, 3),  # two others hold it, its own place is free: kept
    ([(0, H), (1, H), (2, H)], 0, 3),  # somebody took its place over: refused
    ([(0, H)], 0, 1),  # k = 1, taken over: refused
    ([(1, F)], 0, 2),  # the other holder left too: kept
]


@pytest.mark.parametrize(("others", "slot", "k"), TAKE_BACK_CASES)
def test_a_lapsed_lease_is_taken_back_alike_on_a_control_and_an_ordinary_item(others, slot, k):
    overlap = Overlap(k=k)
    outcomes = []
    for control in (False, True):
        # A control's places are its slots past k, in groups of k (free_slot).
        shift = k if control else 0
        rows = [SlotRow(slot + shift, False)] + [SlotRow(s + shift, held) for s, held in others]
        filled = sum(row.holding for row in rows)
        if control:
            # Controls have had many more holders elsewhere: they do not count here.
            rows += [SlotRow(2 * k + i, True, True) for i in range(k)]
            filled += 5 * k
        taken = take_back_slot(overlap, rows=rows, slot=slot + shift, control=control,
                               filled=filled, submitted=filled, disputed=False)  # fmt: skip
        outcomes.append(None if taken is None else taken - shift)
    assert outcomes[0] == outcomes[1]
    assert (outcomes[0] is None) == any(s == slot and held for s, held in others)


def test_a_later_group_of_a_control_is_judged_by_its_own_holders():
    overlap = Overlap(k=2)
    rows = [SlotRow(2, True, True), SlotRow(3, True, True), SlotRow(4, False), SlotRow(5, True)]
    kept = take_back_slot(overlap, rows=rows, slot=4, control=True, filled=3, submitted=2,
                          disputed=False)  # fmt: skip
    assert kept == 4
    rows[2:] = [SlotRow(4, False), SlotRow(4, True), SlotRow(5, True)]  # taken over
    assert take_back_slot(overlap, rows=rows, slot=4, control=True, filled=4, submitted=2,
                          disputed=False) is None  # fmt: skip


@pytest.mark.parametrize(
    ("per_item", "rows", "control", "expected"),
    [
        (3, [], False, 0),
        (3, [(0, H)], False, 1),
        (3, [(1, H)], False, 0),
        (3, [(0, H), (2, H)], False, 1),
        (3, [(0, H), (1, F)], False, 1),  # an expired or skipped lease frees its slot
        (3, [(0, H), (1, H), (2, H)], False, None),
        (3, [(0, F), (1, H), (2, H)], False, 0),
        (2, [(0, H), (1, H), (2, H)], False, None),  # k lowered below the holders
        (1, [], False, 0),
        (3, [], True, 3),  # controls take slots past k
        (3, [(3, H), (4, H), (5, H)], True, 6),
        # A lapsed lease's slot on a control is taken over, as on an ordinary item.
        (3, [(3, F), (4, H)], True, 3),
        (3, [(3, H), (4, F), (5, H), (6, H)], True, 4),
    ],
)
def test_the_free_slot(per_item, rows, control, expected):
    slot_rows = [SlotRow(slot, holding) for slot, holding in rows]
    assert free_slot(per_item=per_item, rows=slot_rows, control=control) == expected


def test_the_default_rule_is_registered_under_its_name():
    assert DEFAULT is FULLEST_FIRST
    assert STRATEGIES[DEFAULT.name] is DEFAULT


@pytest.mark.parametrize(
    ("order", "message"),
    [
        ((Key("filled_count", True), Key("pk")), "cannot order by 'filled_count'"),
        ((Key("filled", True),), "must end with the primary key"),
    ],
)
def test_a_strategy_orders_only_by_known_facts_and_ends_with_the_key(order, message):
    with pytest.raises(ValueError, match=message):
        Strategy(name="bad", label="Bad", order=order)


def test_a_new_strategy_is_a_different_order_over_the_same_facts():
    emptiest = Strategy(name="emptiest", label="Emptiest first", order=(Key("filled"), Key("pk")))
    candidates = [C(1, filled=2), C(2, filled=0), C(3, filled=1)]
    assert [c.pk for c in sort_candidates(candidates, emptiest.order)] == [2, 3, 1]


def test_the_strategy_module_imports_no_django():
    root = Path(__file__).resolve().parents[2]
    code = (
        "import sys, annotation.assignment.strategy; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'django'))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"
