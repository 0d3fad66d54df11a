"""The work queue's rules: exactly k distinct annotators, no repeats, leases that expire and resume."""

from collections import Counter
from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.models import Assignment, Item, LabelSet
from annotation.services import (
    QueueError,
    assignment_next,
    assignment_reassign,
    assignment_release,
    assignment_skip,
    assignment_submit,
    leases_expire,
    project_update,
)

pytestmark = pytest.mark.django_db

NO_ERRORS = [[], []]


def take_and_submit(project, annotator):
    assignment = assignment_next(project=project, annotator=annotator)
    if assignment is None:
        return None
    assignment_submit(assignment_id=assignment.pk, annotator=annotator, labels=NO_ERRORS)
    return assignment.item_id


def test_every_item_gets_exactly_k_distinct_annotators(project, make_items, members):
    make_items(project, 5)
    people = members(4)
    # Round robin until nobody gets anything.
    progress = True
    while progress:
        progress = False
        for person in people:
            if take_and_submit(project, person) is not None:
                progress = True
    per_item = Counter(LabelSet.objects.values_list("item_id", flat=True))
    assert per_item == {item.pk: 3 for item in Item.objects.all()}
    pairs = list(LabelSet.objects.values_list("item_id", "annotator_id"))
    assert len(pairs) == len(set(pairs))  # never the same annotator twice
    assert all(item.submitted_count == 3 == item.filled_count for item in Item.objects.all())


def test_an_annotator_never_gets_an_item_twice(project, make_items, members):
    make_items(project, 2)
    (anna,) = members(1)
    seen = [take_and_submit(project, anna), take_and_submit(project, anna)]
    assert sorted(seen) == sorted(Item.objects.values_list("pk", flat=True))
    assert assignment_next(project=project, annotator=anna) is None


def _labelled(project, item, person):
    """A label set on a chosen item, whatever the queue would have picked."""
    assignment = Assignment.objects.create(
        project=project,
        item=item,
        annotator=person,
        slot=item.filled_count,
        expires_at=timezone.now() + timedelta(minutes=5),
    )
    Item.objects.filter(pk=item.pk).update(filled_count=item.filled_count + 1)
    item.refresh_from_db()
    assignment_submit(assignment_id=assignment.pk, annotator=person, labels=NO_ERRORS)


def test_it_prefers_the_item_closest_to_completion(project, make_items, members):
    first, second, third = make_items(project, 3)
    a, b, c, d, e = members(5)
    _labelled(project, third, a)
    _labelled(project, third, b)
    _labelled(project, second, c)
    assert assignment_next(project=project, annotator=d).item_id == third.pk
    assert assignment_next(project=project, annotator=e).item_id == second.pk
    assert first.pk not in Assignment.objects.values_list("item_id", flat=True)


def test_an_open_lease_counts_towards_completion(project, make_items, members):
    first, second = make_items(project, 2)
    a, b = members(2)
    assert assignment_next(project=project, annotator=a).item_id == first.pk
    assert assignment_next(project=project, annotator=b).item_id == first.pk


def test_an_open_lease_is_resumed_not_duplicated(project, make_items, members):
    make_items(project, 3)
    (anna,) = members(1)
    first = assignment_next(project=project, annotator=anna)
    again = assignment_next(project=project, annotator=anna)
    assert again.pk == first.pk
    assert Assignment.objects.filter(annotator=anna).count() == 1
    assert Item.objects.get(pk=first.item_id).filled_count == 1


def test_an_expired_lease_returns_the_item_to_the_pool(project, make_items, members):
    project_update(project=project, annotators_per_item=1)
    (item,) = make_items(project, 1)
    anna, bob = members(2)
    lease = assignment_next(project=project, annotator=anna)
    assert assignment_next(project=project, annotator=bob) is None  # k = 1 and it is taken

    Assignment.objects.filter(pk=lease.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    given = assignment_next(project=project, annotator=bob)
    assert given is not None and given.item_id == item.pk
    lease.refresh_from_db()
    assert lease.state == Assignment.State.EXPIRED
    item.refresh_from_db()
    assert item.filled_count == 1

    with pytest.raises(QueueError) as refused:
        assignment_submit(assignment_id=lease.pk, annotator=anna, labels=NO_ERRORS)
    assert refused.value.status == 409


def test_leases_expire_recounts_only_stale_leases(project, make_items, members):
    items = make_items(project, 2)
    anna, bob = members(2)
    stale = assignment_next(project=project, annotator=anna)
    fresh = assignment_next(project=project, annotator=bob)
    Assignment.objects.filter(pk=stale.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    assert leases_expire(project=project) == 1
    fresh.refresh_from_db()
    assert fresh.state == Assignment.State.LEASED
    counts = dict(Item.objects.values_list("pk", "filled_count"))
    assert counts[stale.item_id] == (1 if stale.item_id == fresh.item_id else 0)
    assert sum(counts.values()) == 1 and len(items) == 2


def test_an_annotator_whose_own_lease_expired_gets_work_again(project, make_items, members):
    make_items(project, 2)
    (anna,) = members(1)
    lease = assignment_next(project=project, annotator=anna)
    Assignment.objects.filter(pk=lease.pk).update(
        expires_at=timezone.now() - timedelta(seconds=1), draft=[["value_error"], []]
    )
    again = assignment_next(project=project, annotator=anna)
    assert again is not None and again.state == Assignment.State.LEASED
    assert again.expires_at > timezone.now()
    # The item closest to completion is the one they had: it comes back with its draft.
    assert again.pk == lease.pk and again.draft == [["value_error"], []]


def test_a_skipped_item_is_not_offered_again_and_frees_its_slot(project, make_items, members):
    (item,) = make_items(project, 1)
    (anna,) = members(1)
    lease = assignment_next(project=project, annotator=anna)
    assignment_skip(assignment_id=lease.pk, annotator=anna, reason="Chart does not load")
    item.refresh_from_db()
    assert item.filled_count == 0
    assert assignment_next(project=project, annotator=anna) is None
    lease.refresh_from_db()
    assert lease.skip_reason == "Chart does not load"


def test_a_skip_needs_a_reason(project, make_items, members):
    make_items(project, 1)
    (anna,) = members(1)
    lease = assignment_next(project=project, annotator=anna)
    with pytest.raises(Exception, match="why you skip"):
        assignment_skip(assignment_id=lease.pk, annotator=anna, reason="  ")


def test_a_researcher_releases_a_lease_back_to_the_pool(project, make_items, members, researcher):
    project_update(project=project, annotators_per_item=1)
    (item,) = make_items(project, 1)
    anna, bob = members(2)
    lease = assignment_next(project=project, annotator=anna)
    assignment_release(assignment_id=lease.pk, project=project, actor=researcher, reason="idle")
    assert assignment_next(project=project, annotator=bob).item_id == item.pk
    with pytest.raises(QueueError):
        assignment_release(assignment_id=lease.pk, project=project, actor=researcher)


def test_a_researcher_reassigns_a_lease_to_another_member(project, make_items, members, researcher):
    project_update(project=project, annotators_per_item=1)
    (item,) = make_items(project, 1)
    anna, bob = members(2)
    lease = assignment_next(project=project, annotator=anna)
    moved = assignment_reassign(
        assignment_id=lease.pk, project=project, to_annotator=bob, actor=researcher
    )
    assert moved.annotator == bob and moved.state == Assignment.State.LEASED
    assert assignment_next(project=project, annotator=bob).pk == moved.pk
    lease.refresh_from_db()
    assert lease.state == Assignment.State.RELEASED
    item.refresh_from_db()
    assert item.filled_count == 1


def test_reassigning_to_someone_who_already_labelled_the_item_is_refused(
    project, make_items, members, researcher
):
    make_items(project, 1)
    anna, bob = members(2)
    take_and_submit(project, bob)
    lease = assignment_next(project=project, annotator=anna)
    with pytest.raises(QueueError, match="nobody labels an item twice"):
        assignment_reassign(
            assignment_id=lease.pk, project=project, to_annotator=bob, actor=researcher
        )
    lease.refresh_from_db()
    assert lease.state == Assignment.State.LEASED


def test_non_members_get_no_work(project, make_items, make_user):
    make_items(project, 1)
    stranger = make_user("annotator")
    with pytest.raises(QueueError) as refused:
        assignment_next(project=project, annotator=stranger)
    assert refused.value.status == 404


def test_lowering_k_stops_new_leases_on_items_that_reached_it(project, make_items, members):
    make_items(project, 1)
    anna, bob = members(2)
    take_and_submit(project, anna)
    project_update(project=project, annotators_per_item=1)
    assert assignment_next(project=project, annotator=bob) is None
