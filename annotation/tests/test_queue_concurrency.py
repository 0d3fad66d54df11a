"""The queue under real concurrent connections to PostgreSQL (one per thread)."""

import threading
from collections import Counter

import pytest
from django.db import connection

from annotation.models import Assignment, Item, LabelSet
from annotation.services import (
    assignment_next,
    assignment_submit,
    assignment_submit_next,
    project_update,
)

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def run_threads(count, target):
    barrier = threading.Barrier(count)
    errors = []
    results = [None] * count

    def run(index):
        try:
            barrier.wait(timeout=10)
            results[index] = target(index)
        except Exception as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors
    return results


def test_many_annotators_at_once_fill_each_item_exactly_k_times(project, make_items, members):
    project_update(project=project, annotators_per_item=3)
    make_items(project, 40)
    people = members(12)

    def work(index):
        done = 0
        while True:
            assignment = assignment_next(project=project, annotator=people[index])
            if assignment is None:
                return done
            assignment_submit(
                assignment_id=assignment.pk, annotator=people[index], labels=[[], ["trend_error"]]
            )
            done += 1

    done = run_threads(len(people), work)
    assert sum(done) == 40 * 3
    per_item = Counter(LabelSet.objects.values_list("item_id", flat=True))
    assert set(per_item.values()) == {3} and len(per_item) == 40
    pairs = list(LabelSet.objects.values_list("item_id", "annotator_id"))
    assert len(pairs) == len(set(pairs))
    assert not Assignment.objects.filter(state=Assignment.State.LEASED).exists()
    assert set(Item.objects.values_list("filled_count", "submitted_count")) == {(3, 3)}


def test_simultaneous_requests_never_hand_out_the_same_lease_twice(project, make_items, members):
    make_items(project, 30)
    people = members(16)

    leases = run_threads(
        len(people), lambda index: assignment_next(project=project, annotator=people[index]).pk
    )
    held = Assignment.objects.filter(pk__in=leases)
    assert len(set(leases)) == 16 == held.count()
    # Every slot is used once: no item holds more leases than k, slots never collide.
    slots = list(held.values_list("item_id", "slot"))
    assert len(slots) == len(set(slots))
    assert max(Counter(item for item, _ in slots).values()) <= 3


def test_one_annotator_asking_many_times_at_once_gets_one_lease(project, make_items, members):
    make_items(project, 10)
    (anna,) = members(1)
    leases = run_threads(8, lambda index: assignment_next(project=project, annotator=anna).pk)
    assert len(set(leases)) == 1
    assert Assignment.objects.filter(annotator=anna).count() == 1
    assert sum(Item.objects.values_list("filled_count", flat=True)) == 1


CATEGORIES = ("value_error", "label_error", "trend_error", "magnitude_error", "ooc_error")


def _own_labels(index):
    """Labels no other annotator of the test gives: a distinct subset of categories."""
    return [[key for bit, key in enumerate(CATEGORIES) if index + 1 >> bit & 1], []]


def _until_settled(project, people, labels_for):
    """Each thread's work loop under adaptive overlap: lease, label, submit, until nothing is left.

    No item for you now is not the end: a disputed item waits for its open leases, and another
    annotator's submit may still dispute an item. A thread with nothing to do waits for the
    next submit; the work is over when the last busy thread finds nothing and no label set came
    in meanwhile.
    """
    changed = threading.Condition()
    state = {"busy": len(people), "submits": 0, "over": False}

    def work(index):
        done = 0
        while True:
            with changed:
                if state["over"]:
                    return done
                before = state["submits"]
            assignment = assignment_next(project=project, annotator=people[index])
            if assignment is not None:
                labels = labels_for(index, assignment.item_id)
                assignment_submit(
                    assignment_id=assignment.pk, annotator=people[index], labels=labels
                )
                done += 1
                with changed:
                    state["submits"] += 1
                    changed.notify_all()
                continue
            with changed:
                if state["submits"] != before:
                    continue  # a label set came in meanwhile: ask again
                state["busy"] -= 1
                if state["busy"] == 0:
                    state["over"] = True
                    changed.notify_all()
                    return done
                changed.wait_for(
                    lambda seen=before: state["over"] or state["submits"] != seen, timeout=60
                )
                state["busy"] += 1

    def guarded(index):
        try:
            return work(index)
        except BaseException:
            with changed:  # the others stop too, rather than wait for this thread
                state["over"] = True
                changed.notify_all()
            raise

    return guarded


def test_adaptive_overlap_under_concurrency_collects_k_min_or_k_max_exactly(
    project, make_items, members
):
    project_update(
        project=project,
        overlap_policy="adaptive",
        overlap_k_min=2,
        overlap_k_max=4,
        overlap_rule="disagreement",
    )
    items = make_items(project, 30)
    hard = {item.pk for item in items[::3]}  # every annotator marks these differently
    people = members(12)

    def labels_for(index, item_id):
        return _own_labels(index) if item_id in hard else [[], ["trend_error"]]

    done = run_threads(len(people), _until_settled(project, people, labels_for))
    per_item = Counter(LabelSet.objects.values_list("item_id", flat=True))
    expected = {item.pk: 4 if item.pk in hard else 2 for item in items}
    assert dict(per_item) == expected and sum(done) == sum(expected.values())
    pairs = list(LabelSet.objects.values_list("item_id", "annotator_id"))
    assert len(pairs) == len(set(pairs))
    assert not Assignment.objects.filter(state=Assignment.State.LEASED).exists()
    for pk, filled, submitted, disputed in Item.objects.values_list(
        "pk", "filled_count", "submitted_count", "disputed"
    ):
        assert filled == submitted == expected[pk] and disputed is (pk in hard)


def test_adaptive_leases_at_once_never_pass_k_min_before_a_dispute(project, make_items, members):
    project_update(
        project=project,
        overlap_policy="adaptive",
        overlap_k_min=2,
        overlap_k_max=4,
        overlap_rule="disagreement",
    )
    make_items(project, 5)
    people = members(16)

    leases = run_threads(
        len(people),
        lambda index: getattr(
            assignment_next(project=project, annotator=people[index]), "pk", None
        ),
    )
    given = [pk for pk in leases if pk is not None]
    # Five items, nothing submitted yet: exactly k_min holders each, the rest wait.
    assert len(given) == 10 == len(set(given))
    held = Counter(Assignment.objects.filter(pk__in=given).values_list("item_id", flat=True))
    assert set(held.values()) == {2}


def test_submits_that_lease_the_next_item_fill_each_item_exactly_k_times(
    project, make_items, members
):
    make_items(project, 40)
    people = members(12)

    def work(index):
        person, done = people[index], 0
        assignment = assignment_next(project=project, annotator=person)
        while assignment is not None:
            submitted = assignment_submit_next(
                assignment_id=assignment.pk, annotator=person, labels=[[], ["trend_error"]]
            )
            assert submitted.refusal is None
            assignment, done = submitted.next, done + 1
        return done

    done = run_threads(len(people), work)
    assert sum(done) == 40 * 3
    per_item = Counter(LabelSet.objects.values_list("item_id", flat=True))
    assert set(per_item.values()) == {3} and len(per_item) == 40
    pairs = list(LabelSet.objects.values_list("item_id", "annotator_id"))
    assert len(pairs) == len(set(pairs))
    assert not Assignment.objects.filter(state=Assignment.State.LEASED).exists()
    assert set(Item.objects.values_list("filled_count", "submitted_count")) == {(3, 3)}
