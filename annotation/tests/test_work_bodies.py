"""The plain-dict bodies of the hot annotator responses equal what the documented serializers give."""

import pytest
from django.test import RequestFactory

from annotation.api.annotator_serializers import SubmittedNextSerializer, WorkAssignmentSerializer
from annotation.api.work_bodies import submitted_next_body, work_assignment_body
from annotation.models import Category
from annotation.selectors import work_categories
from annotation.services import assignment_next, assignment_submit_next
from annotation.services.queue import QueueError
from annotation.services.queue_flow import Submitted
from annotation.tests.quality_setup import control_item_ids, qualify, with_rounds

pytestmark = pytest.mark.django_db


def test_bodies_match_the_serializers_for_ordinary_and_control_items(
    project, make_items, members, researcher
):
    with_rounds(project, make_items, researcher, controls=3, control_rate=0.5, min_controls=100)
    make_items(project, 5)
    (anna,) = members(1)
    qualify(project, anna)
    request = RequestFactory().post("/")
    categories = work_categories(project)
    lease = assignment_next(project=project, annotator=anna)
    context = {"request": request, "categories": categories}
    assert work_assignment_body(lease, categories, request) == (
        WorkAssignmentSerializer(lease, context=context).data
    )
    controls, kinds = control_item_ids(project), set()
    while lease is not None:
        labels = [[] for _ in lease.item.sentences]
        submitted = assignment_submit_next(assignment_id=lease.pk, annotator=anna, labels=labels)
        expected = SubmittedNextSerializer(submitted, context={"request": request}).data
        assert submitted_next_body(submitted, request) == expected
        lease = submitted.next
        if lease is not None:
            kinds.add(lease.item_id in controls)
    assert kinds == {True, False}  # both kinds were compared


def test_a_refusal_body_matches_the_serializer(project, make_items, members):
    make_items(project, 1)
    (anna,) = members(1)
    lease = assignment_next(project=project, annotator=anna)
    done = assignment_submit_next(assignment_id=lease.pk, annotator=anna, labels=[[], []])
    busy = Submitted(done.label_set, None, QueueError("Busy.", status=503, code="busy"))
    for submitted in (done, busy):
        expected = SubmittedNextSerializer(submitted, context={"request": None}).data
        assert submitted_next_body(submitted, None) == expected


def test_work_categories_read_in_sql_equal_the_querysets(project):
    first = Category.objects.filter(project=project).order_by("position", "pk").first()
    first.position = 99  # reordered: the list follows position, then pk
    first.translations = {"de": {"name": "Wert"}}
    first.save()
    expected = list(Category.objects.filter(project=project).order_by("position", "pk"))
    got = work_categories(project)
    fields = ("pk", "project_id", "key", "name", "definition", "example", "shortcut", "position")
    assert [[getattr(c, f) for f in fields] for c in got] == [
        [getattr(c, f) for f in fields] for c in expected
    ]
    assert got[-1].pk == first.pk and got[-1].translations == {"de": {"name": "Wert"}}
