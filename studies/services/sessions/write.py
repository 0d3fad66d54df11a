"""Writing an answer in one statement: the response, the session's new position and the
next trial's first-shown stamp.

On PostgreSQL the three writes go as one ``INSERT`` with two data-modifying CTEs
(PostgreSQL runs each of them exactly once, whether or not the insert reads them), so an
answer costs one locked read and one write inside its transaction. The statement is
written here rather than compiled by the ORM for each answer (compiling the two updates
and the insert cost about 1.5 ms of CPU per answer); values still go through each field's
own ``get_db_prep_save``, as the ORM's compiler does, so conversions (JSON, time zones)
stay Django's. Other databases run the same writes one by one through the ORM. No signal
handlers listen to these models.
"""

from __future__ import annotations

from functools import cache

from django.db import connection

from core.db.prepared import execute_prepared
from studies.models import ParticipantSession, Response, Trial


def _quote(name: str) -> str:
    return connection.ops.quote_name(name)


@cache
def _insert_statement() -> tuple[str, tuple]:
    """The response's INSERT (PostgreSQL) and the fields behind its placeholders."""
    fields = tuple(f for f in Response._meta.concrete_fields if not f.primary_key)
    columns = ", ".join(_quote(f.column) for f in fields)
    placeholders = ", ".join("%s" for _ in fields)
    table, pk = _quote(Response._meta.db_table), _quote(Response._meta.pk.column)
    sql = f"INSERT INTO {table} ({columns}) VALUES ({placeholders}) RETURNING {pk}"
    return sql, fields


def _update(model, pk: int, values: dict, *, only_if_null: str = "") -> tuple[str, list]:
    meta = model._meta
    fields = [meta.get_field(name) for name in values]
    assignments = ", ".join(f"{_quote(f.column)} = %s" for f in fields)
    sql = f"UPDATE {_quote(meta.db_table)} SET {assignments} WHERE {_quote(meta.pk.column)} = %s"
    if only_if_null:
        sql += f" AND {_quote(meta.get_field(only_if_null).column)} IS NULL"
    params = [f.get_db_prep_save(values[f.name], connection) for f in fields]
    return sql, [*params, pk]


def answer_write(
    *, response: Response, session: ParticipantSession, fields: list[str], next_trial, now
) -> None:
    """Insert ``response``, save ``fields`` of ``session``, mark ``next_trial`` shown."""
    if connection.vendor != "postgresql":
        response.save(force_insert=True)
        session.save(update_fields=fields)
        if next_trial is not None:
            Trial.objects.filter(pk=next_trial.pk, shown_at__isnull=True).update(shown_at=now)
            next_trial.shown_at = next_trial.shown_at or now
        return
    parts, params = [], []
    sql, args = _update(ParticipantSession, session.pk, {f: getattr(session, f) for f in fields})
    parts.append(f"advanced AS ({sql})")
    params.extend(args)
    if next_trial is not None:
        sql, args = _update(Trial, next_trial.pk, {"shown_at": now}, only_if_null="shown_at")
        parts.append(f"shown AS ({sql})")
        params.extend(args)
        next_trial.shown_at = next_trial.shown_at or now
    insert, insert_fields = _insert_statement()
    params.extend(f.get_db_prep_save(f.pre_save(response, True), connection) for f in insert_fields)
    statement = f"WITH {', '.join(parts)} {insert}"
    relax = RELAX_COMMIT if session.study.fast_answer_commit else ""
    with connection.cursor() as cursor:
        execute_prepared(cursor, statement, params, alias=connection.alias, before=relax)
        response.pk = cursor.fetchone()[0]
    response._state.adding = False
    response._state.db = connection.alias


# Only for studies whose researcher accepted it (``Study.fast_answer_commit``): the commit
# returns before the WAL is flushed, so a crash of the database server (not of a web
# process) can lose the last moments of answers, never half of one. ``SET LOCAL`` ends
# with the transaction, so it is safe behind a transaction pooler; it travels with the
# write in one round trip.
RELAX_COMMIT = "SET LOCAL synchronous_commit TO OFF"
