"""Reading a large export inside one transaction."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator

from django.db import connection, transaction


def export_transaction():
    """The transaction a long export reads in: one on PostgreSQL, none on SQLite.

    See :func:`in_one_transaction` for why each.
    """
    if connection.vendor != "postgresql":
        return contextlib.nullcontext()
    return transaction.atomic()


def in_one_transaction(chunks: Iterable) -> Iterator:
    """Yield ``chunks`` (a lazy generator of an export) from inside one transaction.

    Why: on PostgreSQL ``QuerySet.iterator()`` reads through a server-side cursor.
    Outside a transaction Django declares it WITH HOLD, which PostgreSQL computes
    in full before the first row, and which breaks behind PgBouncer in transaction
    pooling (the next FETCH may reach another server connection). Inside one
    transaction the cursor streams, works under transaction pooling, and every
    query of the export sees the same snapshot.

    Not on the embedded SQLite: it begins transactions IMMEDIATE (settings), so a long
    export would hold the write lock and keep participants' answers waiting; its WAL
    journal already lets a reader stream beside writers.
    """
    with export_transaction():
        yield from chunks
