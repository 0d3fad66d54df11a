"""The queue's SQL for storing a label set and for the annotator's standing.

Split from queue_sql.py (locking and leasing), whose helpers it uses, for the same reason:
these run on every submit, and compiling them through the ORM cost more CPU than
PostgreSQL takes to answer them. The rules stay in their homes (services/queue_work.py
stores, services/quality/controls.py scores).
"""

from __future__ import annotations

from functools import cache

from django.db import connection

from annotation.models import GoldItem, Qualification, QualityPolicy
from annotation.services.queue_sql import (
    GOLD,
    POLICIES,
    QUALIFICATIONS,
    A,
    I,
    State,
    as_json,
    build,
    columns,
    convert,
    execute,
    fetch,
    locking,
    when,
    width,
)

# --- storing a label set ---------------------------------------------------------------------


def label_set_insert(assignment, annotator_id: int, labels, active: float, now):
    """The label set's row (returns its id)."""
    return (
        'INSERT INTO "annotation_labelset" ("assignment_id", "project_id", "item_id", '
        '"annotator_id", "labels", "active_seconds", "submitted_at") '
        'VALUES (%s, %s, %s, %s, %s, %s, %s) RETURNING "id"',
        [
            assignment.pk,
            assignment.project_id,
            assignment.item_id,
            annotator_id,
            as_json(labels),
            active,
            when(now),
        ],
    )


def assignment_submitted(assignment_id: int, active: float, now) -> tuple[str, list]:
    return (
        f'UPDATE "{A}" SET "state" = %s, "finished_at" = %s, "active_seconds" = %s, '
        f'"draft" = NULL WHERE "id" = %s',
        [State.SUBMITTED, when(now), active, assignment_id],
    )


def item_submitted_add(item_id: int) -> tuple[str, list]:
    return (
        f'UPDATE "{I}" SET "submitted_count" = "submitted_count" + 1 WHERE "id" = %s',
        [item_id],
    )


def write_all(writes, read=None) -> tuple[int | None, tuple | None]:
    """Run ``writes`` ((sql, params), the first may return an id) and then ``read`` (a SELECT).

    Returns (the first write's id, the read's first row or None). PostgreSQL
    runs them all as one statement (data-modifying WITH): one round trip and one
    parse where there were several. The writes touch rows the transaction has
    already locked, so running them together changes nothing but the cost. On
    SQLite, which has no data-modifying WITH, they run one after another.
    """
    if connection.vendor != "postgresql":
        pk = row = None
        for number, (sql, params) in enumerate(writes):
            if number == 0 and "RETURNING" in sql:
                pk = fetch(sql, params)[0][0]
            else:
                execute(sql, params)
        if read is not None:
            rows = fetch(*read)
            row = rows[0] if rows else None
        return pk, row
    parts, params = [], []
    for number, (sql, values) in enumerate(writes):
        parts.append(f"w{number} AS ({sql})")
        params += values
    first = '(SELECT "id" FROM w0)' if "RETURNING" in writes[0][0] else "NULL"
    if read is None:
        rows = fetch(f"WITH {', '.join(parts)} SELECT {first}", params)
        return rows[0][0], None
    parts.append(f"r AS ({read[0]})")
    params += read[1]
    rows = fetch(
        f"WITH {', '.join(parts)} SELECT {first}, r.* FROM (SELECT 1) one LEFT JOIN r ON TRUE",
        params,
    )
    row = rows[0]
    return row[0], (row[1:] if row[1] is not None else None)


# --- the annotator's standing (services/quality/controls.py) ---------------------------------


@cache
def _standing_sql(vendor: str) -> str:
    gold = f'(SELECT g."labels" FROM "{GOLD}" g WHERE g."item_id" = %s)'
    return (
        f"SELECT {columns(Qualification, 'q')}, {columns(QualityPolicy, 'qp')}, {gold} "
        f'FROM "{QUALIFICATIONS}" q LEFT OUTER JOIN "{POLICIES}" qp '
        f'ON qp."project_id" = q."project_id" '
        f'WHERE q."project_id" = %s AND q."annotator_id" = %s' + locking("q")
    )


def standing_read(project_id: int, annotator_id: int, item_id: int) -> tuple[str, list]:
    """The SELECT that locks the annotator's standing and reads it, the policy and any gold."""
    return _standing_sql(connection.vendor), [item_id, project_id, annotator_id]


def standing_from(row):
    """(the annotator's locked Qualification or None, the project's QualityPolicy or None,
    the item's gold labels or None) from ``standing_read``'s row (None: no standing)."""
    if row is None:
        return None, None, None
    qualification = build(Qualification, row)
    at = width(Qualification)
    policy = build(QualityPolicy, row, at) if row[at] is not None else None
    gold = row[at + width(QualityPolicy)]
    return qualification, policy, None if gold is None else convert(GoldItem, "labels", gold)


def standing_lock(project_id: int, annotator_id: int, item_id: int):
    """``standing_from`` of ``standing_read``, on its own."""
    rows = fetch(*standing_read(project_id, annotator_id, item_id))
    return standing_from(rows[0] if rows else None)


def standing_update(qualification, fields) -> tuple[str, list]:
    """The UPDATE of ``fields`` of the annotator's locked ``qualification``."""
    names = [Qualification._meta.get_field(name) for name in fields]
    assignments = ", ".join(f'"{field.column}" = %s' for field in names)
    values = [field.get_db_prep_save(getattr(qualification, field.attname), connection)
              for field in names]  # fmt: skip
    return (
        f'UPDATE "{QUALIFICATIONS}" SET {assignments} WHERE "id" = %s',
        [*values, qualification.pk],
    )


def standing_save(qualification, fields) -> None:
    execute(*standing_update(qualification, fields))
