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
from annotation.services.annotator_decisions import annotator_decision
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


@pytest.mark.parametrize("swept", [False, True])
@pytest.mark.parametrize(("action", "code"), [("block", "blocked"), ("disqualify", "eliminated")])
def test_a_late_submit_passes_the_work_gate_as_a_new_lease_does(
    project, make_items, members, researcher, swept, action, code
):
    with_rounds(project, make_items, researcher, controls=0)
    (item, _) = make_items(project, 2)
    (anna,) = members(1)
    qualify(project, anna)
    lease = assignment_next(project=project, annotator=anna)
    _run_out(lease)
    if swept:
        leases_expire(project=project)
    annotator_decision(project=project, annotator=anna, action=action, reason="r", actor=researcher)
    with pytest.raises(QueueError) as gate:
        assignment_next(project=project, annotator=anna)
    for late in (assignment_submit, assignment_submit_next, assignment_draft_save):
        with pytest.raises(QueueError) as refused:
            late(assignment_id=lease.pk, annotator=anna, labels=LABELS)
        assert (refused.value.status, refused.value.code) == (403, code)
        assert refused.value.message == gate.value.message
    assert not LabelSet.objects.filter(annotator=anna).exists()
    # The decision released the lease: its slot is free for others at once.
    assert Item.objects.get(pk=lease.item_id).filled_count == 0


def test_a_late_control_is_refused_once_someone_took_its_place_as_an_ordinary_item_is(
    project, make_items, members, researcher
):
    project_update(project=project, annotators_per_item=1)
    # Only control items to give: everyone gets the same one.
    with_rounds(project, make_items, researcher, controls=1, control_rate=1.0, min_controls=100)
    anna, bob = members(2)
    for person in (anna, bob):
        qualify(project, person)
    lease = assignment_next(project=project, annotator=anna)
    assert lease.item_id in control_item_ids(project)
    _run_out(lease)
    taken = assignment_next(project=project, annotator=bob)  # sweeps anna's lease
    assert taken.item_id == lease.item_id and taken.slot == lease.slot
    with pytest.raises(QueueError) as refused:
        assignment_submit(assignment_id=lease.pk, annotator=anna, labels=LABELS)
    assert refused.value.status == 409
    assert "another annotator has taken it over" in refused.value.message
    assert not LabelSet.objects.filter(annotator=anna).exists()


def test_a_late_submit_that_loses_to_its_own_annotators_next_lease_says_so(
    project, make_items, members, monkeypatch
):
    from annotation.services import queue_sql

    items = make_items(project, 2)
    anna, bob = members(2)
    first = assignment_next(project=project, annotator=anna)
    _run_out(first)
    # The other item is now the fuller one, so the queue gives it next.
    submit(project, next(item for item in items if item.pk != first.item_id), bob, LABELS)
    second = assignment_next(project=project, annotator=anna)  # the first one ends
    assert second.pk != first.pk
    _run_out(second)
    leases_expire(project=project)
    read = queue_sql.item_assignments

    def racing(item_id):
        # Another request of anna's leases her an item while this submit looks at slots.
        Assignment.objects.filter(pk=second.pk).update(
            state=Assignment.State.LEASED, expires_at=timezone.now() + timedelta(minutes=5)
        )
        return read(item_id)

    monkeypatch.setattr(queue_sql, "item_assignments", racing)
    with pytest.raises(QueueError) as refused:
        assignment_submit(assignment_id=first.pk, annotator=anna, labels=LABELS)
    assert refused.value.status == 409
    assert "you have been given another item since" in refused.value.message
    assert "another annotator" not in refused.value.message


@pytest.mark.parametrize(("action", "code"), [("block", "blocked"), ("disqualify", "eliminated")])
def test_a_lease_still_running_is_released_when_its_annotator_is_blocked(
    project, make_items, members, researcher, action, code
):
    with_rounds(project, make_items, researcher, controls=0)
    make_items(project, 2)
    (anna,) = members(1)
    qualify(project, anna)
    lease = assignment_next(project=project, annotator=anna)
    annotator_decision(project=project, annotator=anna, action=action, reason="r", actor=researcher)
    lease.refresh_from_db()
    assert lease.state == "released"
    for late in (assignment_submit, assignment_draft_save):
        with pytest.raises(QueueError) as refused:
            late(assignment_id=lease.pk, annotator=anna, labels=LABELS)
        assert (refused.value.status, refused.value.code) == (403, code)
    assert not LabelSet.objects.filter(annotator=anna).exists()
    assert Item.objects.get(pk=lease.item_id).filled_count == 0
