"""The queue under real concurrent connections to PostgreSQL (one per thread)."""

import threading
from collections import Counter

import pytest
from django.db import connection

from annotation.models import Assignment, Item, LabelSet
from annotation.services import assignment_next, assignment_submit, project_update

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
