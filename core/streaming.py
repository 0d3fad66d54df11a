"""Reading a large export inside one transaction."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from django.db import transaction


def in_one_transaction(chunks: Iterable) -> Iterator:
    """Yield ``chunks`` (a lazy generator of an export) from inside one transaction.

    Why: on PostgreSQL ``QuerySet.iterator()`` reads through a server-side cursor.
    Outside a transaction Django declares it WITH HOLD, which PostgreSQL computes
    in full before the first row, and which breaks behind PgBouncer in transaction
    pooling (the next FETCH may reach another server connection). Inside one
    transaction the cursor streams, works under transaction pooling, and every
    query of the export sees the same snapshot.
    """
    with transaction.atomic():
        yield from chunks
