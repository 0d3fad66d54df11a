""" "Items left" is what the queue will actually give: it drops by one with each item,
control or not, and is 0 exactly when the queue has nothing more."""

import itertools

import pytest

from annotation.assignment.strategy import choose, controls_ahead, ordinary_needed
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
        # The queue counts open items only up to the bound that decides "one more control".
        needed = ordinary_needed(taken=taken, given=given, rate=rate)
        capped = controls_ahead(
            taken=taken, given=given, rate=rate, ordinary_left=min(left, needed), unseen=unseen
        )
        assert (capped >= 1) == (ahead >= 1)


def test_the_queue_gives_controls_only_within_the_bound_and_the_rest_at_the_end():
    assert choose(control_due=True, ordinary="o", control="c", controls_left=0).item == "o"
    assert choose(control_due=False, ordinary=None, control="c", controls_left=1).item == "c"
    assert choose(control_due=False, ordinary=None, control="c", controls_left=0).item is None
    assert choose(control_due=False, ordinary="o", control="c", controls_left=2).item == "o"
    assert choose(control_due=True, ordinary="o", control="c", controls_left=1).control


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
