"""The queue's adapter applies the pure strategy's order and overlap rule exactly (its ORM
querysets and its hand-written SQL alike), and its index follows the order."""

from __future__ import annotations

import random

import pytest
from django.db import connection

from annotation.assignment.strategy import (
    ADAPTIVE,
    CANDIDATE_FIELDS,
    DEFAULT,
    FIXED,
    Candidate,
    Key,
    Overlap,
    Strategy,
    sort_candidates,
)
from annotation.models import Item
from annotation.selectors.overlap import wanting_items, wanting_sql
from annotation.services import assignment_next
from annotation.services import queue as queue_module


def _candidates(project, per_item):
    rows = Item.objects.filter(project=project, filled_count__lt=per_item)
    return [
        Candidate(pk=i.pk, filled=i.filled_count, submitted=i.submitted_count, position=i.position)
        for i in rows
    ]


def _scramble(project, make_items, seed):
    """Items with counters and positions that tie often, as a busy project's do."""
    rng = random.Random(seed)
    for item in make_items(project, 24):
        filled = rng.randint(0, 3)  # 3 = complete at k=3, never offered
        Item.objects.filter(pk=item.pk).update(
            filled_count=filled,
            submitted_count=rng.randint(0, filled),
            position=rng.randint(0, 4),
        )


def test_every_fact_a_strategy_may_order_by_has_a_column():
    assert set(queue_module.COLUMNS) == CANDIDATE_FIELDS


def test_the_queue_index_follows_the_default_order():
    (index,) = [i for i in Item._meta.indexes if i.name == "item_queue_order"]
    columns = [
        ("-" if key.descending else "") + queue_module.COLUMNS[key.field] for key in DEFAULT.order
    ]
    assert index.fields == ["project", *[c.replace("pk", "id") for c in columns]]


@pytest.mark.django_db
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_database_orders_open_items_as_the_strategy_does(project, make_items, members, seed):
    _scramble(project, make_items, seed)
    (anna,) = members(1)
    expected = [c.pk for c in sort_candidates(_candidates(project, 3), DEFAULT.order)]
    assert len(expected) >= 10
    assert list(queue_module._open_items(project, anna).values_list("pk", flat=True)) == expected
    assert assignment_next(project=project, annotator=anna).item_id == expected[0]


@pytest.mark.django_db
def test_a_new_strategy_changes_what_the_queue_leases(project, make_items, members, monkeypatch):
    _scramble(project, make_items, 4)
    emptiest = Strategy(
        name="emptiest_first",
        label="Emptiest item first",
        order=(Key("filled"), Key("position", True), Key("pk")),
    )
    expected = sort_candidates(_candidates(project, 3), emptiest.order)[0]
    assert expected.pk != sort_candidates(_candidates(project, 3), DEFAULT.order)[0].pk
    monkeypatch.setattr(queue_module, "STRATEGY", emptiest)
    (anna,) = members(1)
    assert assignment_next(project=project, annotator=anna).item_id == expected.pk


@pytest.mark.django_db
@pytest.mark.parametrize("policy", [FIXED, ADAPTIVE])
def test_the_hand_written_filter_picks_the_items_the_orm_rule_picks(project, make_items, policy):
    """The queue's hot query spells the overlap rule in SQL (wanting_sql): the same items."""
    rng = random.Random(9)
    for item in make_items(project, 60):
        filled = rng.randint(0, 5)
        Item.objects.filter(pk=item.pk).update(
            filled_count=filled,
            submitted_count=rng.choice([filled, rng.randint(0, filled)]),
            disputed=rng.random() < 0.5,
        )
    overlap = Overlap(policy=policy, k=3, k_min=2, k_max=4)
    by_rule = set(
        Item.objects.filter(project=project)
        .filter(wanting_items(overlap))
        .values_list("pk", flat=True)
    )
    condition, params = wanting_sql(overlap)
    with connection.cursor() as cursor:
        cursor.execute(
            f'SELECT i."id" FROM "annotation_item" i WHERE i."project_id" = %s AND ({condition})',
            [project.pk, *params],
        )
        by_sql = {row[0] for row in cursor.fetchall()}
    assert 0 < len(by_sql) < 60
    assert by_sql == by_rule
