"""Writing an answer in one statement: the response, the session's new position and the
next trial's first-shown stamp.

On PostgreSQL the three writes go as one ``INSERT`` with two data-modifying CTEs
(PostgreSQL runs each of them exactly once, whether or not the insert reads them), so an
answer costs one read and one write. The statement is
written here rather than compiled by the ORM for each answer (compiling the two updates
and the insert cost about 1.5 ms of CPU per answer); values still go through each field's
own ``get_db_prep_save``, as the ORM's compiler does, so conversions (JSON, time zones)
stay Django's. Other databases run the same writes one by one through the ORM. No signal
handlers listen to these models.

With a ``guard`` (the usual answer, read without a lock: services/sessions/record.py) the
session's update is conditional on its row still holding the values the answer was decided
on, and the next trial's stamp and the response are written only if it matched: one
statement, committed on its own outside a transaction, which writes all three or nothing.
"""

from __future__ import annotations

from contextlib import nullcontext
from functools import cache

from django.db import DEFAULT_DB_ALIAS, connection, connections, transaction

from core.db.prepared import execute_prepared
from studies.models import ParticipantSession, Response, Trial


def _quote(name: str) -> str:
    return connection.ops.quote_name(name)


@cache
def _insert_statement(guarded: bool) -> tuple[str, tuple]:
    """The response's INSERT (PostgreSQL) and the fields behind its placeholders; guarded,
    it inserts only if the CTE ``advanced`` updated the session (its values cast to their
    columns' types, which PostgreSQL does not infer for a SELECT as it does for VALUES)."""
    fields = tuple(f for f in Response._meta.concrete_fields if not f.primary_key)
    columns = ", ".join(_quote(f.column) for f in fields)
    table, pk = _quote(Response._meta.db_table), _quote(Response._meta.pk.column)
    if guarded:
        values = ", ".join(f"%s::{_cast_type(f)}" for f in fields)
        rows = f"SELECT {values} WHERE EXISTS (SELECT FROM advanced)"
    else:
        rows = "VALUES (" + ", ".join("%s" for _ in fields) + ")"
    return f"INSERT INTO {table} ({columns}) {rows} RETURNING {pk}", fields


def _cast_type(field) -> str:
    # A column's type for a cast, without a length: an explicit cast to varchar(64) would cut
    # a longer text silently, where storing it into the column refuses it.
    cast = field.cast_db_type(connection)
    return "text" if cast.startswith("varchar") else cast


def _update_statement(model, names: tuple, only_if_null: str, guard: tuple) -> tuple[str, tuple]:
    """An UPDATE of ``names`` of one ``model`` row and the fields behind its placeholders: the
    new values, the primary key, then the non-null values of ``guard``, a tuple of (field
    name, whether its value as read was null)."""
    meta = model._meta
    fields = tuple(meta.get_field(name) for name in names)
    assignments = ", ".join(f"{_quote(f.column)} = %s" for f in fields)
    sql = f"UPDATE {_quote(meta.db_table)} SET {assignments} WHERE {_quote(meta.pk.column)} = %s"
    if only_if_null:
        sql += f" AND {_quote(meta.get_field(only_if_null).column)} IS NULL"
    guarded = []
    for name, was_null in guard:
        field = meta.get_field(name)
        sql += f" AND {_quote(field.column)} {'IS NULL' if was_null else '= %s'}"
        if not was_null:
            guarded.append(field)
    return sql, (*fields, meta.pk, *guarded)


@cache
def _answer_statement(fields: tuple, guard: tuple | None, with_next: bool) -> tuple[str, tuple]:
    """The answer's one statement (PostgreSQL) for a shape of answer, and the field behind
    each placeholder in order: the session's, the next trial's (``with_next``), the
    response's. Built once per shape: building it anew cost each answer 0.02-0.03 ms of
    CPU. ``guard`` as in :func:`_update_statement`, or None for an unguarded write."""
    guarded = guard is not None
    sql, session_fields = _update_statement(ParticipantSession, fields, "", guard or ())
    parts = [f"advanced AS ({sql}{' RETURNING 1' if guarded else ''})"]
    slots = list(session_fields)
    if with_next:
        sql, trial_fields = _update_statement(Trial, ("shown_at",), "shown_at", ())
        if guarded:
            sql += " AND EXISTS (SELECT FROM advanced)"
        parts.append(f"shown AS ({sql})")
        slots.extend(trial_fields)
    insert, insert_fields = _insert_statement(guarded)
    slots.extend(insert_fields)
    return f"WITH {', '.join(parts)} {insert}", tuple(slots)


def answer_write(
    *,
    response: Response,
    session: ParticipantSession,
    fields: list[str],
    next_trial,
    now,
    guard: dict | None = None,
) -> bool:
    """Insert ``response``, save ``fields`` of ``session``, mark ``next_trial`` shown.

    With ``guard`` (field name -> value as read), only if the session's row still has those
    values; False, with nothing written, when it does not.
    """
    # The guarded write stands alone where it can: one statement on PostgreSQL. It needs a
    # transaction (a savepoint inside one) for the ORM's three writes on other databases,
    # inside a caller's transaction (where a failed statement would abort it), and for a
    # relaxed commit (SET LOCAL holds only within a transaction).
    alone = connection.vendor == "postgresql" and not (
        connection.in_atomic_block or session.study.fast_answer_commit
    )
    with nullcontext() if guard is None or alone else transaction.atomic():
        return _write(response, session, fields, next_trial, now, guard)


def _write(response, session, fields, next_trial, now, guard) -> bool:
    # The connection itself, not django.db.connection: each attribute read through that proxy
    # goes through a thread-local lookup, and each field's conversion below reads several.
    db = connections[DEFAULT_DB_ALIAS]
    if db.vendor != "postgresql":
        return _write_orm(response, session, fields, next_trial, now, guard)
    shape = None if guard is None else tuple((name, value is None) for name, value in guard.items())
    statement, slots = _answer_statement(tuple(fields), shape, next_trial is not None)
    # The values in the statement's order: the session's, the next trial's, the response's.
    values = [getattr(session, name) for name in fields]
    values.append(session.pk)
    values.extend(value for value in (guard or {}).values() if value is not None)
    if next_trial is not None:
        values.extend((now, next_trial.pk))
    response_fields = slots[len(values) :]
    values.extend(f.pre_save(response, True) for f in response_fields)
    params = [f.get_db_prep_save(value, db) for f, value in zip(slots, values, strict=True)]
    with db.cursor() as cursor:
        before = RELAX_COMMIT if session.study.fast_answer_commit else ""
        execute_prepared(cursor, statement, params, alias=db.alias, before=before)
        row = cursor.fetchone()
    if row is None:
        return False  # the guard did not match: nothing was written
    _stored(response, next_trial, now)
    response.pk = row[0]
    return True


def _write_orm(response, session, fields, next_trial, now, guard) -> bool:
    if guard is not None:
        values = {f: getattr(session, f) for f in fields}
        if not ParticipantSession.objects.filter(pk=session.pk, **guard).update(**values):
            return False
    else:
        session.save(update_fields=fields)
    response.save(force_insert=True)
    if next_trial is not None:
        Trial.objects.filter(pk=next_trial.pk, shown_at__isnull=True).update(shown_at=now)
    _stored(response, next_trial, now)
    return True


def _stored(response, next_trial, now) -> None:
    if next_trial is not None:
        next_trial.shown_at = next_trial.shown_at or now
    response._state.adding = False
    response._state.db = DEFAULT_DB_ALIAS


# Only for studies whose researcher accepted it (``Study.fast_answer_commit``): the commit
# returns before the WAL is flushed, so a crash of the database server (not of a web
# process) can lose the last moments of answers, never half of one. ``SET LOCAL`` ends
# with the transaction, so it is safe behind a transaction pooler; it travels with the
# write in one round trip.
RELAX_COMMIT = "SET LOCAL synchronous_commit TO OFF"
