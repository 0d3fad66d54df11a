"""Exports read their rows through a chunked iterator and never load a whole queryset."""

import io

import pytest
from django.db.models.query import QuerySet

from studies.models import Response
from studies.services.exports import export_write
from studies.tests.factories import simulated_study

pytestmark = pytest.mark.django_db


@pytest.fixture
def watched(monkeypatch):
    """Record chunked reads of responses, and fail any read that materialises them all."""
    chunked = []
    fetch_all, iterator = QuerySet._fetch_all, QuerySet.iterator

    def guarded_fetch_all(self):
        assert self.model is not Response, "the export loaded every response at once"
        return fetch_all(self)

    def spied_iterator(self, chunk_size=None):
        if self.model is Response:
            chunked.append(chunk_size)
        return iterator(self, chunk_size=chunk_size)

    monkeypatch.setattr(QuerySet, "_fetch_all", guarded_fetch_all)
    monkeypatch.setattr(QuerySet, "iterator", spied_iterator)
    return chunked


@pytest.mark.parametrize(
    "slug", ["responses-csv", "responses-wide-csv", "responses-parquet", "responses-wide-parquet"]
)
def test_responses_exports_read_through_a_chunked_iterator(researcher, watched, slug):
    study = simulated_study(researcher, participants=3, compute=False)
    watched.clear()
    export_write(study=study, slug=slug, out=io.BytesIO())
    assert watched and all(size and size > 1 for size in watched)
