"""Annotation exports read label sets and items through a chunked iterator, never all at once."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from django.db.models.query import QuerySet

from annotation.models import Item, LabelSet
from annotation.services.exports import project_export
from annotation.tests.factories import submit

pytestmark = pytest.mark.django_db
STREAMED = (Item, LabelSet)


@dataclass
class Watch:
    on: bool = False
    chunks: list = field(default_factory=list)


@pytest.fixture
def watch(monkeypatch):
    """Once on: record chunked reads of items and label sets, fail a read that loads them all."""
    state = Watch()
    fetch_all, iterator = QuerySet._fetch_all, QuerySet.iterator

    def guarded_fetch_all(self):
        # A DISTINCT or grouped query returns a few rows per annotator or item: not a load.
        if state.on and not (self.query.distinct or self.query.group_by):
            assert self.model not in STREAMED, f"the export loaded every {self.model.__name__}"
        return fetch_all(self)

    def spied_iterator(self, chunk_size=None):
        if state.on and self.model in STREAMED:
            state.chunks.append(chunk_size)
        return iterator(self, chunk_size=chunk_size)

    monkeypatch.setattr(QuerySet, "_fetch_all", guarded_fetch_all)
    monkeypatch.setattr(QuerySet, "iterator", spied_iterator)
    return state


@pytest.mark.parametrize("fmt", ["labels-csv", "labels-jsonl", "chocolate"])
def test_label_exports_read_through_a_chunked_iterator(project, make_items, members, watch, fmt):
    first, second = members(2)
    (item,) = make_items(project, 1)
    submit(project, item, first, [["value_error"], []])
    submit(project, item, second, [[], ["trend_error"]])
    watch.on = True
    text = "".join(project_export(project=project, fmt=fmt).chunks)
    assert text
    assert watch.chunks and all(size and size > 1 for size in watch.chunks)
