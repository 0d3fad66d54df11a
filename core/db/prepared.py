"""Hot statements prepared once per PostgreSQL connection.

Planning the participant's locked read (a six-table join) took PostgreSQL 0.7 ms, six
times as long as running it (``EXPLAIN (ANALYZE, SUMMARY)``), and PostgreSQL shares the
web server's CPUs. Django binds parameters on the client (its default, which keeps
PgBouncer and multi-statement strings working), so psycopg never prepares anything. For
the few statements run on every answer, :func:`execute_prepared` sends ``PREPARE`` the
first time a connection runs a statement, in the same round trip as its first
``EXECUTE``, and only ``EXECUTE`` afterwards: each statement is parsed and planned once
per connection (``plan_cache_mode`` decides, as for any prepared statement, whether the
plan is generic or per value).

Not behind a transaction pooler (a statement prepared on one server connection is
unknown on the next) and not with ``server_side_binding`` (psycopg then prepares on its
own): there the statement is simply executed. A prepared statement outlives a rolled-back
transaction, so the bookkeeping only has to forget a connection whose statement failed;
its later statements are prepared again under new names.
"""

from __future__ import annotations

import hashlib
import itertools
import re
import weakref

from django.db import connections

# Per psycopg connection: the prefix of its statement names and the names prepared on it.
# After a failure it is forgotten, and the connection's next statements get a new prefix
# (whether the failed PREPARE took effect is unknown, so its name is never sent again).
_prepared: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_prefixes = itertools.count(1)
_PLACEHOLDER = re.compile(r"%([%s])")


def _server_side_binding(connection) -> bool:
    return bool(connection.settings_dict.get("OPTIONS", {}).get("server_side_binding"))


def _can_prepare(connection) -> bool:
    if connection.vendor != "postgresql" or _server_side_binding(connection):
        return False
    return connection.settings_dict["ENGINE"] != "core.db.pgbouncer"


def _numbered(sql: str) -> str:
    """``sql`` with its ``%s`` placeholders as ``$1``, ``$2``, ... (``%%`` left as is)."""
    count = 0

    def number(match: re.Match) -> str:
        nonlocal count
        if match[1] == "%":
            return "%%"
        count += 1
        return f"${count}"

    return _PLACEHOLDER.sub(number, sql)


def execute_prepared(cursor, sql: str, params, *, alias: str = "default", before: str = ""):
    """Execute ``sql`` (Django's ``%s`` style) as a prepared statement where it can be.

    ``before`` is a statement without parameters sent ahead of it in the same round trip
    (``SET LOCAL ...``). Afterwards the cursor is on ``sql``'s own result.
    """
    connection = connections[alias]  # looked up once: each lookup reads a thread-local
    if before and _server_side_binding(connection):
        cursor.execute(before)  # one statement per call there
        before = ""
    statements = [before] if before else []
    if not _can_prepare(connection):
        _run(cursor, [*statements, sql], params)
        return
    raw = connection.connection
    state = _prepared.get(raw)
    if state is None:
        state = _prepared[raw] = (f"chartroom_{next(_prefixes)}_", set())
    prefix, names = state
    name = prefix + hashlib.sha1(sql.encode()).hexdigest()[:16]
    first = name not in names
    if first:
        statements.append(f"PREPARE {name} AS {_numbered(sql)}")
    placeholders = ", ".join("%s" for _ in params)
    statements.append(f"EXECUTE {name}({placeholders})" if params else f"EXECUTE {name}")
    try:
        _run(cursor, statements, params)
    except Exception:
        _prepared.pop(raw, None)
        raise
    if first:
        names.add(name)


def _run(cursor, statements: list[str], params) -> None:
    cursor.execute("; ".join(statements), params)
    for _ in statements[1:]:
        cursor.nextset()  # past the results of the statements before the last
