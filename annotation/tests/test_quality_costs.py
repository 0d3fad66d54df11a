"""What quality control costs the queue: constant queries, and control leases no costlier than others."""

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


def _cost(api, method, url, **kw):
    with CaptureQueriesContext(connection) as queries:
        response = getattr(api, method)(url, **kw)
    return response, len(queries)


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
    # Same order of work either way, so response times do not single out controls.
    assert abs(control[0] - normal[0]) <= 1, costs
    assert abs(control[1] - normal[1]) <= 2, costs  # scoring: categories + result row
    assert max(control + normal) <= 25
