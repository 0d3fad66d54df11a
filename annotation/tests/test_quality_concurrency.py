"""Control items under real concurrent connections to PostgreSQL."""

from collections import Counter

import pytest

from annotation.models import LabelSet
from annotation.services import QueueError, assignment_next, assignment_submit
from annotation.tests.quality_setup import control_item_ids, qualify, with_rounds
from annotation.tests.test_queue_concurrency import run_threads

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_annotators_working_at_once_share_controls_and_still_fill_items_exactly_k(
    project, make_items, members, researcher
):
    with_rounds(project, make_items, researcher, controls=4, control_rate=0.3, min_controls=1000)
    make_items(project, 40)
    people = members(10)
    for person in people:
        qualify(project, person)

    def work(index):
        done = 0
        while True:
            try:
                lease = assignment_next(project=project, annotator=people[index])
            except QueueError:
                continue
            if lease is None:
                return done
            assignment_submit(assignment_id=lease.pk, annotator=people[index], labels=[[], []])
            done += 1

    run_threads(len(people), work)
    controls = control_item_ids(project)
    per_item = Counter(LabelSet.objects.values_list("item_id", flat=True))
    normal = {item: n for item, n in per_item.items() if item not in controls}
    assert len(normal) == 40 and set(normal.values()) == {3}
    assert sum(per_item[c] for c in controls) > 0
    pairs = list(LabelSet.objects.values_list("item_id", "annotator_id"))
    assert len(pairs) == len(set(pairs))  # nobody got a control twice
