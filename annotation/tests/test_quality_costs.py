"""What quality control costs the queue: constant queries, the same for control and ordinary items."""

import random

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from annotation.services.quality import controls as controls_module
from annotation.tests.quality_setup import control_item_ids, qualify, with_rounds

pytestmark = pytest.mark.django_db


class Draws(random.Random):
    """Control draws the test chooses: 0.0 makes a control due, 0.99 not (at rate 0.5)."""

    def __init__(self, values):
        super().__init__(0)
        self.values = list(values)

    def random(self):
        return self.values.pop(0)

    def getrandbits(self, k):  # choice() draws from here, not from the scripted values
        return super().getrandbits(k)


def _shape(sql: str) -> tuple[str, str]:
    """A statement's verb and first table, e.g. ("UPDATE", "annotation_item")."""
    verb = sql.split(None, 1)[0].upper()
    marker = {"SELECT": " FROM ", "INSERT": " INTO ", "UPDATE": "UPDATE "}.get(verb)
    if marker is None or marker not in sql:
        return verb, ""
    return verb, sql.split(marker, 1)[1].split(None, 1)[0].strip('"')


def _cost(api, method, url, **kw):
    with CaptureQueriesContext(connection) as queries:
        response = getattr(api, method)(url, **kw)
    return response, tuple(_shape(q["sql"]) for q in queries.captured_queries)


@pytest.mark.parametrize("size", [(3, 4), (12, 30)])
def test_a_control_lease_and_submit_cost_the_same_queries_as_a_normal_one(
    project, make_items, members, researcher, monkeypatch, size
):
    controls, items = size
    with_rounds(
        project, make_items, researcher, controls=controls, control_rate=0.5, min_controls=100
    )
    make_items(project, items)
    (anna,) = members(1)
    qualify(project, anna)
    api = APIClient()
    api.force_authenticate(anna)
    monkeypatch.setattr(controls_module, "_rng", Draws([0.0, 0.99, 0.0, 0.99]))
    control_ids = control_item_ids(project)
    costs = {}
    for _ in range(4):
        lease, next_cost = _cost(api, "post", f"/api/v1/annotator/projects/{project.slug}/next/")
        from annotation.models import Assignment

        kind = (
            "control"
            if Assignment.objects.get(pk=lease.json()["id"]).item_id in control_ids
            else "normal"
        )
        _, submit_cost = _cost(
            api, "post", f"/api/v1/annotator/assignments/{lease.json()['id']}/submit/",
            data={"labels": [[], []]}, format="json",
        )  # fmt: skip
        costs.setdefault(kind, set()).add((next_cost, submit_cost))
    assert set(costs) == {"control", "normal"}
    (control,) = costs["control"]
    (normal,) = costs["normal"]
    # The same statements in the same order either way, so response times do not
    # single out controls (bench/bench_controls.py times both on PostgreSQL).
    assert control[0] == normal[0], costs
    assert control[1] == normal[1], costs
    assert max(len(c) for c in control + normal) <= 16, costs


def test_the_count_of_items_left_drops_by_one_for_a_control_as_for_any_item(
    project, make_items, members, researcher, monkeypatch
):
    with_rounds(project, make_items, researcher, controls=3, control_rate=0.5, min_controls=100)
    make_items(project, 6)
    (anna,) = members(1)
    qualify(project, anna)
    api = APIClient()
    api.force_authenticate(anna)
    # normal, control, normal, control: the kinds alternate, the count must not.
    monkeypatch.setattr(controls_module, "_rng", Draws([0.99, 0.0, 0.99, 0.0]))
    control_ids = control_item_ids(project)
    base = f"/api/v1/annotator/projects/{project.slug}"
    left = [api.get(f"{base}/progress/").json()["left_for_you"]]
    kinds = []
    from annotation.models import Assignment

    for _ in range(4):
        lease = api.post(f"{base}/next/").json()
        kinds.append(Assignment.objects.get(pk=lease["id"]).item_id in control_ids)
        left.append(api.get(f"{base}/progress/").json()["left_for_you"])
        api.post(f"/api/v1/annotator/assignments/{lease['id']}/submit/",
                 {"labels": [[], []]}, format="json")  # fmt: skip
    assert kinds == [False, True, False, True]
    assert left == [9, 8, 7, 6, 5]  # 6 ordinary + 3 controls, one fewer per item taken
