"""Writing an answer in one statement: the response, the session's new position and the
next trial's first-shown stamp.

On PostgreSQL the three writes go as one ``INSERT`` with two data-modifying CTEs
(PostgreSQL runs each of them exactly once, whether or not the insert reads them), so an
answer costs one locked read and one write inside its transaction. The SQL is Django's
own for each write, so field conversions (JSON, time zones) stay the ORM's. Other
databases run the same writes one by one. No signal handlers listen to these models.
"""

from __future__ import annotations

from django.db import connection
from django.db.models import Q
from django.db.models.sql import InsertQuery, UpdateQuery

from studies.models import ParticipantSession, Response, Trial


def _update_sql(model, pk: int, values: dict, condition: Q | None = None) -> tuple[str, tuple]:
    query = UpdateQuery(model)
    query.add_update_values(values)
    query.add_q(Q(pk=pk) & (condition or Q()))
    return query.get_compiler(connection.alias).as_sql()


def _insert_sql(response: Response) -> tuple[str, tuple]:
    fields = [f for f in Response._meta.concrete_fields if not f.primary_key]
    query = InsertQuery(Response)
    query.insert_values(fields, [response])
    compiler = query.get_compiler(connection.alias)
    compiler.returning_fields = [Response._meta.pk]
    [(sql, params)] = compiler.as_sql()
    return sql, params


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
    sql, args = _update_sql(
        ParticipantSession, session.pk, {f: getattr(session, f) for f in fields}
    )
    parts.append(f"advanced AS ({sql})")
    params.extend(args)
    if next_trial is not None:
        sql, args = _update_sql(Trial, next_trial.pk, {"shown_at": now}, Q(shown_at__isnull=True))
        parts.append(f"shown AS ({sql})")
        params.extend(args)
        next_trial.shown_at = next_trial.shown_at or now
    sql, args = _insert_sql(response)
    with connection.cursor() as cursor:
        cursor.execute(f"WITH {', '.join(parts)} {sql}", (*params, *args))
        response.pk = cursor.fetchone()[0]
    response._state.adding = False
    response._state.db = connection.alias
