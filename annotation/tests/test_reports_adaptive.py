"""The agreement report of an adaptive-overlap project: what it computes on unequal raters."""

from __future__ import annotations

import numpy as np
import pytest
from statsmodels.stats import inter_rater

from analysis.agreement import gwet_ac1
from annotation.services import project_update
from annotation.services.reports import report_compute
from annotation.tests.factories import submit

pytestmark = pytest.mark.django_db

NO, YES = [[]], [["value_error"]]


def test_kappa_on_the_first_k_min_label_sets_and_ac1_on_all(project, make_items, members):
    project_update(project=project, overlap_policy="adaptive", overlap_k_min=2, overlap_k_max=4)
    items = make_items(project, 4, sentences=("One sentence.",))
    a, b, c, d = members(4)
    # Two settled items (2 label sets) and two that grew to 4; in submission order.
    plan = [
        (items[0], [(a, YES), (b, YES)]),
        (items[1], [(a, NO), (b, NO)]),
        (items[2], [(a, YES), (b, NO), (c, YES), (d, YES)]),
        (items[3], [(b, NO), (a, YES), (c, NO), (d, NO)]),
    ]
    for item, sets in plan:
        for person, labels in sets:
            submit(project, item, person, labels)
    data = report_compute(project=project).data
    rows = {row["decision"]: row for row in data["agreement"]["decisions"]}
    value = rows["value_error"]
    first = np.array([[0, 2], [2, 0], [1, 1], [1, 1]])  # (no, yes) over the first two
    every = np.array([[0, 2], [2, 0], [1, 3], [3, 1]])
    assert value["fleiss_kappa"] == pytest.approx(inter_rater.fleiss_kappa(first), abs=5e-4)
    assert value["gwet_ac1"] == pytest.approx(gwet_ac1(every), abs=5e-4)
    assert value["sentences"] == 4 and value["sentences_all"] == 4
    assert "first k_min = 2 label sets" in data["agreement"]["basis"]
    assert data["overlap"]["policy"] == "adaptive" and data["k"] == 2
    assert data["agreement"]["left_out"] == []
    assert data["summary"]["items_complete"] == 4
