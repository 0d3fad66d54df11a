"""Hot statements are prepared once per PostgreSQL connection and give the same results."""

from __future__ import annotations

import pytest
from django.db import DatabaseError, connection, transaction
from django.test.utils import CaptureQueriesContext

from core.db.prepared import _numbered, execute_prepared

SQL = "SELECT %s::int + 1, '100%%' || %s::text"


def test_placeholders_are_numbered_and_percent_signs_kept():
    assert _numbered("a = %s AND b LIKE '5%%' AND c IN (%s, %s)") == (
        "a = $1 AND b LIKE '5%%' AND c IN ($2, $3)"
    )


def run(sql, params, **kwargs):
    with CaptureQueriesContext(connection) as seen, connection.cursor() as cursor:
        execute_prepared(cursor, sql, params, **kwargs)
        rows = cursor.fetchall()
    [query] = seen.captured_queries  # one round trip, PREPARE or not
    return rows, query["sql"]


@pytest.mark.postgres
@pytest.mark.django_db
def test_prepared_on_first_use_then_only_executed():
    sql = SQL + " /* a statement of its own */"
    first, sent_first = run(sql, [1, "a"])
    second, sent_second = run(sql, [41, "b"])
    assert first == [(2, "100%a")] and second == [(42, "100%b")]
    assert sent_first.startswith("PREPARE chartroom_") and "EXECUTE chartroom_" in sent_first
    assert sent_second.startswith("EXECUTE chartroom_")


@pytest.mark.postgres
@pytest.mark.django_db
def test_a_statement_before_travels_in_the_same_round_trip():
    with transaction.atomic():
        rows, sent = run(SQL, [1, "x"], before="SET LOCAL synchronous_commit TO OFF")
        with connection.cursor() as cursor:
            cursor.execute("SHOW synchronous_commit")
            assert cursor.fetchone()[0] == "off"
    assert rows == [(2, "100%x")] and sent.startswith("SET LOCAL")


@pytest.mark.postgres
@pytest.mark.django_db
def test_after_a_failure_the_connection_prepares_under_new_names():
    sql = "SELECT 1 / %s::int /* after a failure */"
    with pytest.raises(DatabaseError), transaction.atomic():
        run(sql, [0])  # division by zero, once PREPARE has taken effect
    rows, sent = run(sql, [1])  # the same statement: prepared again, no name clash
    assert rows == [(1,)] and sent.startswith("PREPARE chartroom_")
    assert run(sql, [1])[1].startswith("EXECUTE chartroom_")


@pytest.mark.django_db
def test_other_databases_and_poolers_execute_plainly(monkeypatch, settings):
    monkeypatch.setitem(connection.settings_dict, "ENGINE", "core.db.pgbouncer")
    rows, sent = run("SELECT %s", [7])
    assert rows == [(7,)] and not sent.startswith(("PREPARE", "EXECUTE"))
