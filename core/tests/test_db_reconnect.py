"""Without per-request health checks, a connection that died is replaced after one failure."""

import psycopg
import pytest
from django.conf import settings
from django.db import OperationalError, close_old_connections, connection

pytestmark = pytest.mark.django_db(transaction=True)


def _kill(pid: int) -> None:
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    with psycopg.connect(**params, autocommit=True) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [pid])


def test_a_connection_killed_by_a_database_restart_is_replaced_after_the_request():
    if connection.vendor != "postgresql":
        # The embedded SQLite database has no server to restart; CI runs PostgreSQL.
        assert not settings.DATABASES["default"].get("CONN_HEALTH_CHECKS")
        return
    db = settings.DATABASES["default"]
    assert not db.get("CONN_HEALTH_CHECKS") and db["CONN_MAX_AGE"] > 0
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    _kill(pid)
    with pytest.raises(OperationalError), connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    # What the end of every request does (the request_finished signal).
    close_old_connections()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        assert cursor.fetchone()[0] != pid
