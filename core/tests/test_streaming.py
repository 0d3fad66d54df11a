"""A long export reads in one transaction on PostgreSQL, and in none on the embedded SQLite."""

import pytest
from django.db import connection

from core.streaming import in_one_transaction


def _chunks(seen):
    for part in ("a", "b"):
        seen.append(connection.in_atomic_block)
        yield part


@pytest.mark.django_db(transaction=True)
def test_an_export_streams_in_one_transaction_only_on_postgresql():
    seen = []
    assert list(in_one_transaction(_chunks(seen))) == ["a", "b"]
    # SQLite begins transactions IMMEDIATE here, so a transaction would hold the write
    # lock for the whole download and keep participants' answers waiting.
    expected = connection.vendor == "postgresql"
    assert seen == [expected, expected]
    assert not connection.in_atomic_block
