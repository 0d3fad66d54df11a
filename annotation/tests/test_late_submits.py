"""A label set or draft that arrives after the annotator's time on the item ran out is kept
while the item still needs it, and refused once someone else took the item over or the
item has all its labels: an item never gets more label sets than its overlap."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from annotation.models import Assignment, Item, LabelSet
from annotation.services import (
    QueueError,
    assignment_draft_save,
    assignment_next,
    assignment_submit,
    assignment_submit_next,
    leases_expire,
    project_update,
)
from annotation.tests.factories import submit
from annotation.tests.quality_setup import control_item_ids, qualify, with_rounds

pytestmark = pytest.mark.django_db

LABELS = [["value_error"], []]


def _run_out(lease):
    Assignment.objects.filter(pk=lease.pk).update(expires_at=timezone.now() - timedelta(minutes=1))


def test_a_late_submit_nobody_swept_is_kept(project, make_items, members):
    make_items(project, 1)
    (anna,) = members(1)
    lease = assignment_next(project=project, annotator=anna)
    _run_out(lease)
    label_set = assignment_submit(assignment_id=lease.pk, annotator=anna, labels=LABELS)
    assert label_set.labels == LABELS
    item = Item.objects.get(pk=lease.item_id)
    assert (item.filled_count, item.submitted_count) == (1, 1)


def test_a_late_submit_after_the_sweep_is_kept_while_the_item_needs_a_label(
    project, make_items, members
):
    (item,) = make_items(project, 1)  # k = 3
    anna, bob = members(2)
    lease = assignment_next(project=project, annotator=anna)
    _run_out(lease)
    assert leases_expire(project=project) == 1
    assert assignment_next(project=project, annotator=bob).item_id == item.pk
    submitted = assignment_submit_next(assignment_id=lease.pk, annotator=anna, labels=LABELS)
    assert submitted.label_set.labels == LABELS
    lease.refresh_from_db()
    assert lease.state == Assignment.State.SUBMITTED
    item.refresh_from_db()
    assert (item.filled_count, item.submitted_count) == (2, 1)
    slots = Assignment.objects.filter(item=item, state__in=Assignment.HOLDING)
    assert sorted(slots.values_list("slot", flat=True)) == [0, 1]


def test_a_late_submit_is_refused_once_someone_else_took_the_item_over(
    project, make_items, members
):
    project_update(project=project, annotators_per_item=1)
    (item,) = make_items(project, 1)
    anna, bob = members(2)
    lease = assignment_next(project=project, annotator=anna)
    _run_out(lease)
    taken = assignment_next(project=project, annotator=bob)  # sweeps anna's lease, takes the slot
    assert taken.item_id == item.pk
    with pytest.raises(QueueError) as refused:
        assignment_submit_next(assignment_id=lease.pk, annotator=anna, labels=LABELS)
    assert refused.value.status == 409
    assert "another annotator has taken it over" in refused.value.message
    with pytest.raises(QueueError):
        assignment_draft_save(assignment_id=lease.pk, annotator=anna, labels=LABELS)
    assignment_submit(assignment_id=taken.pk, annotator=bob, labels=LABELS)
    assert LabelSet.objects.filter(item=item).count() == 1


def test_a_late_submit_never_makes_more_label_sets_than_the_overlap(project, make_items, members):
    project_update(project=project, annotators_per_item=2)
    (item,) = make_items(project, 1)
    anna, bob, carl = members(3)
    lease = assignment_next(project=project, annotator=anna)
    _run_out(lease)
    for person in (bob, carl):  # the first sweeps anna's lease
        theirs = assignment_next(project=project, annotator=person)
        assignment_submit(assignment_id=theirs.pk, annotator=person, labels=LABELS)
    with pytest.raises(QueueError):
        assignment_submit(assignment_id=lease.pk, annotator=anna, labels=LABELS)
    assert LabelSet.objects.filter(item=item).count() == 2
    item.refresh_from_db()
    assert (item.filled_count, item.submitted_count) == (2, 2)


def test_a_late_draft_is_kept_and_the_item_is_the_annotators_again(project, make_items, members):
    make_items(project, 2)
    (anna,) = members(1)
    lease = assignment_next(project=project, annotator=anna)
    _run_out(lease)
    leases_expire(project=project)
    saved = assignment_draft_save(assignment_id=lease.pk, annotator=anna, labels=LABELS)
    assert saved.state == Assignment.State.LEASED and saved.expires_at > timezone.now()
    lease.refresh_from_db()
    assert lease.state == Assignment.State.LEASED and lease.draft == LABELS
    assert Item.objects.get(pk=lease.item_id).filled_count == 1
    # The work page resumes it rather than giving another item.
    assert assignment_next(project=project, annotator=anna).pk == lease.pk


def test_a_late_submit_from_an_old_tab_keeps_the_item_now_open(project, make_items, members):
    items = make_items(project, 2)
    anna, bob = members(2)
    old = assignment_next(project=project, annotator=anna)
    _run_out(old)
    # The other item is now the fuller one, so the queue gives it next.
    other = next(item for item in items if item.pk != old.item_id)
    submit(project, other, bob, LABELS)
    new = assignment_next(project=project, annotator=anna)  # expires the old one
    assert new.pk != old.pk
    with pytest.raises(QueueError, match="given another item"):
        assignment_draft_save(assignment_id=old.pk, annotator=anna, labels=LABELS)
    submitted = assignment_submit_next(assignment_id=old.pk, annotator=anna, labels=LABELS)
    assert submitted.label_set.labels == LABELS
    assert submitted.next.pk == new.pk
    assert Assignment.objects.get(pk=new.pk).state == Assignment.State.LEASED


def _late_submit_statements(lease, annotator):
    _run_out(lease)
    leases_expire(project=lease.project)
    with CaptureQueriesContext(connection) as queries:
        assignment_submit(assignment_id=lease.pk, annotator=annotator, labels=LABELS)
    return len(queries)


def test_a_late_control_is_kept_with_the_statements_of_an_ordinary_item(
    project, make_items, members, researcher
):
    with_rounds(project, make_items, researcher, controls=3, control_rate=0.5, min_controls=100)
    make_items(project, 8)
    (anna,) = members(1)
    qualify(project, anna)
    controls = control_item_ids(project)
    counts = {}
    for _ in range(20):
        lease = assignment_next(project=project, annotator=anna)
        if lease is None or len(counts) == 2:
            break
        kind = "control" if lease.item_id in controls else "ordinary"
        if kind in counts:
            assignment_submit(assignment_id=lease.pk, annotator=anna, labels=LABELS)
            continue
        counts[kind] = _late_submit_statements(lease, anna)
        assert LabelSet.objects.filter(assignment=lease).exists()
    assert set(counts) == {"control", "ordinary"}
    assert counts["control"] == counts["ordinary"]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_late_submits_racing_new_leases_never_overfill_an_item(project, make_items, members):
    from annotation.tests.test_queue_concurrency import run_threads

    project_update(project=project, annotators_per_item=2)
    make_items(project, 6)
    late = members(6)
    leases = [assignment_next(project=project, annotator=person) for person in late]
    Assignment.objects.filter(pk__in=[lease.pk for lease in leases]).update(
        expires_at=timezone.now() - timedelta(minutes=1)
    )
    fresh = members(6)

    def work(index):
        if index < len(late):  # the late submit of a lapsed lease
            try:
                assignment_submit(
                    assignment_id=leases[index].pk, annotator=late[index], labels=LABELS
                )
            except QueueError:
                return 0
            return 1
        person, done = fresh[index - len(late)], 0
        while (lease := assignment_next(project=project, annotator=person)) is not None:
            assignment_submit(assignment_id=lease.pk, annotator=person, labels=LABELS)
            done += 1
        return done

    run_threads(len(late) + len(fresh), work)
    for item in Item.objects.filter(project=project):
        sets = LabelSet.objects.filter(item=item).count()
        assert sets <= 2
        assert item.submitted_count == sets
        holding = Assignment.objects.filter(item=item, state__in=Assignment.HOLDING).count()
        assert item.filled_count == holding <= 2
