""" "Items left" is what the queue will actually give: it drops by one with each item,
control or not, and is 0 exactly when the queue has nothing more."""

import itertools
import random
from collections import Counter

import pytest

from annotation.assignment.strategy import choose, controls_ahead
from annotation.selectors import annotator_progress
from annotation.services import assignment_next, assignment_submit
from annotation.tests.quality_setup import control_item_ids, qualify, with_rounds

LABELS = [[], []]


@pytest.mark.parametrize("rate", [0.1, 0.2, 0.3, 0.5])
def test_controls_ahead_drops_by_one_per_control_and_never_per_ordinary_item(rate):
    for taken, given, left, unseen in itertools.product(range(12), range(5), range(12), range(4)):
        ahead = controls_ahead(
            taken=taken, given=given, rate=rate, ordinary_left=left, unseen=unseen
        )
        if left:
            after_ordinary = controls_ahead(
                taken=taken + 1, given=given, rate=rate, ordinary_left=left - 1, unseen=unseen
            )
            assert after_ordinary == ahead
        if ahead:
            after_control = controls_ahead(
                taken=taken + 1, given=given + 1, rate=rate, ordinary_left=left, unseen=unseen - 1
            )
            assert after_control == ahead - 1


def test_the_queue_gives_controls_only_within_the_bound():
    rng = random.Random(1)
    assert choose(ordinary="o", control="c", controls_left=0, ordinary_left=5, rng=rng).item == "o"
    assert (
        choose(ordinary=None, control="c", controls_left=0, ordinary_left=0, rng=rng).item is None
    )
    # Nothing ordinary left: the controls still owed come (probability c / (0 + c) = 1).
    assert choose(ordinary=None, control="c", controls_left=2, ordinary_left=0, rng=rng).control
    # A control drawn but held by someone else right now: ordinary work rather than none.
    drawn = [
        choose(ordinary="o", control=None, controls_left=5, ordinary_left=1, rng=rng).item
        for _ in range(20)
    ]
    assert set(drawn) == {"o"}


def test_ordinary_items_held_by_others_right_now_do_not_turn_into_controls():
    # Open ordinary items exist (ordinary_left) but none is free this moment: the draw
    # still decides, so mostly nothing is leased now and the queue looks again.
    rng = random.Random(7)
    picks = [
        choose(ordinary=None, control="c", controls_left=1, ordinary_left=9, rng=rng).item
        for _ in range(2000)
    ]
    assert 0.05 < picks.count("c") / len(picks) < 0.15  # about 1 / (9 + 1)


def _run(rng, *, ordinary, controls, rate):
    """The kinds one annotator gets, alone on a project, as the queue draws them."""
    taken = given = 0
    kinds = []
    while True:
        ahead = controls_ahead(
            taken=taken, given=given, rate=rate, ordinary_left=ordinary, unseen=controls
        )
        if ordinary + ahead == 0:
            return kinds
        choice = choose(
            ordinary="o" if ordinary else None,
            control="c" if controls else None,
            controls_left=ahead,
            ordinary_left=ordinary,
            rng=rng,
        )
        assert choice.item is not None
        taken, given = taken + 1, given + choice.control
        ordinary, controls = ordinary - (not choice.control), controls - choice.control
        kinds.append("c" if choice.control else "o")


@pytest.mark.parametrize(("ordinary", "controls", "rate"), [(8, 6, 0.3), (12, 2, 0.5), (6, 9, 0.5)])
def test_every_position_is_as_likely_a_control_as_any_other(ordinary, controls, rate):
    rng = random.Random(20261203)
    runs = 6000
    per_position, lengths = Counter(), Counter()
    for _ in range(runs):
        kinds = _run(rng, ordinary=ordinary, controls=controls, rate=rate)
        lengths[len(kinds)] += 1
        per_position.update(i for i, kind in enumerate(kinds) if kind == "c")
    # Nobody else takes items, so every run has the same length and the same controls.
    ((length, _),) = lengths.items()
    owed = sum(per_position.values()) / runs
    assert 1 <= owed < length
    share = owed / length
    for position in range(length):
        # Binomial: 5 standard deviations around the even share (fixed seed, no flakes).
        sd = (share * (1 - share) / runs) ** 0.5
        assert abs(per_position[position] / runs - share) < 5 * sd, (position, per_position)
    # In particular the last items are not all controls.
    assert per_position[length - 1] / runs < 0.9


@pytest.mark.django_db
@pytest.mark.parametrize(("rate", "controls", "items"), [(0.2, 3, 10), (0.5, 4, 6), (0.3, 8, 7)])
def test_items_left_counts_down_to_exactly_what_the_queue_gives(
    project, make_items, members, researcher, rate, controls, items
):
    with_rounds(
        project, make_items, researcher, controls=controls, control_rate=rate, min_controls=100
    )
    make_items(project, items)
    control_ids = control_item_ids(project)
    for anna in members(6):  # several annotators: the controls come at random
        qualify(project, anna)
        promised = annotator_progress(project=project, annotator=anna).left_for_you
        given = 0
        while True:
            lease = assignment_next(project=project, annotator=anna)
            if lease is None:
                break
            given += 1
            left = annotator_progress(project=project, annotator=anna).left_for_you
            assert left == promised - given, (lease.item_id in control_ids, given)
            assignment_submit(assignment_id=lease.pk, annotator=anna, labels=LABELS)
        assert given == promised
        assert annotator_progress(project=project, annotator=anna).left_for_you == 0
