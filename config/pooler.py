"""DATABASES["default"] for a connection pooler in front of PostgreSQL (DB_POOLER)."""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured

POOLERS = ("pgbouncer",)


def pooled_database(database: dict, pooler: str) -> dict:
    """``database`` (from DATABASE_URL, which then names the pooler's address) made safe for it.

    PgBouncer in transaction pooling mode: each transaction may run on another server
    connection, so nothing session-level may be relied on.
    - Prepared statements: Django binds parameters on the client by default, which prepares
      nothing; with OPTIONS server_side_binding psycopg would prepare a statement after 5
      runs and reuse it by name on a server connection that may not have it.
      prepare_threshold None rules that out (PgBouncer before 1.21 cannot track them).
    - Server-side cursors outside a transaction: core.db.pgbouncer keeps them inside
      transactions only.
    """
    if pooler not in POOLERS:
        raise ImproperlyConfigured(f"DB_POOLER must be one of: {', '.join(POOLERS)}.")
    options = {**database.get("OPTIONS", {}), "prepare_threshold": None}
    return {**database, "ENGINE": "core.db.pgbouncer", "OPTIONS": options}
