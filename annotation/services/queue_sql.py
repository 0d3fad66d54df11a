"""The queue's hot statements written out in SQL: locking, leasing and storing an item.

Every item an annotator labels runs these (submit with next, or next). Built
through the ORM, compiling them cost most of the request's CPU (about three
quarters in bench/profile_annotation_request.py) for statements PostgreSQL
answers in a fraction of a millisecond, so they are spelled out here and only
their parameters change. The rules stay in their homes: which items want
another holder (selectors/overlap.py, ``wanting_sql`` beside ``wanting_items``),
the strategy's order (assignment/strategy.py), free slots (``rules.free_slot``)
and the lock order (queue.py). The SQL is read by PostgreSQL and by SQLite,
which locks the whole database for a write and so gets no FOR UPDATE.
"""

from __future__ import annotations

from functools import cache

from django.db import connection

from annotation.assignment import strategy as rules
from annotation.models import (
    Assignment,
    GoldItem,
    Item,
    Project,
    ProjectMember,
    Qualification,
    QualificationRound,
    QualityPolicy,
)
from annotation.selectors.work import work_categories_from_json, work_categories_json_sql
from core.db.prepared import execute_prepared

A = Assignment._meta.db_table
I = Item._meta.db_table  # noqa: E741
P = Project._meta.db_table
GOLD = GoldItem._meta.db_table
ROUNDS = QualificationRound._meta.db_table
ROUND_GOLD = QualificationRound.gold_items.through._meta.db_table
MEMBERS = ProjectMember._meta.db_table
QUALIFICATIONS = Qualification._meta.db_table
POLICIES = QualityPolicy._meta.db_table
State = Assignment.State


def locking(of: str, *, skip_locked: bool = False) -> str:
    """`FOR UPDATE OF of` where the database locks rows; SQLite locks the database instead."""
    if not connection.features.has_select_for_update:
        return ""
    return f" FOR UPDATE OF {of}" + (" SKIP LOCKED" if skip_locked else "")


def columns(model, alias: str) -> str:
    """Every concrete column of ``model`` in field order, as ``build`` reads them."""
    return ", ".join(f'{alias}."{field.column}"' for field in model._meta.concrete_fields)


@cache
def _converters(vendor: str, model) -> tuple[tuple[str, ...], tuple]:
    """The field names and, per field, the converters the ORM applies to a fetched value."""
    del vendor  # part of the key: converters differ between databases
    names, converters = [], []
    for field in model._meta.concrete_fields:
        column = field.get_col(model._meta.db_table)
        found = connection.ops.get_db_converters(column) + column.get_db_converters(connection)
        names.append(field.attname)
        converters.append(tuple((converter, column) for converter in found))
    return tuple(names), tuple(converters)


def build(model, row, start: int = 0):
    """A ``model`` instance from ``row[start:]``, converted as a queryset would."""
    names, converters = _converters(connection.vendor, model)
    values = list(row[start : start + len(names)])
    for index, pairs in enumerate(converters):
        for converter, column in pairs:
            values[index] = converter(values[index], column, connection)
    return model.from_db(connection.alias, names, values)


def convert(model, attname: str, value):
    """One fetched value of ``model``'s field ``attname``, converted as a queryset would."""
    names, converters = _converters(connection.vendor, model)
    for converter, column in converters[names.index(attname)]:
        value = converter(value, column, connection)
    return value


def stored(instance):
    """``instance`` marked as a row of the database (it was written by SQL of this module)."""
    instance._state.adding = False
    instance._state.db = connection.alias
    return instance


def width(model) -> int:
    return len(model._meta.concrete_fields)


def when(value):
    """A datetime as the database takes it (SQLite stores naive UTC text)."""
    return connection.ops.adapt_datetimefield_value(value)


def as_json(value):
    return None if value is None else connection.ops.adapt_json_value(value, None)


# Prepared once per PostgreSQL connection (core/db/prepared.py): they run on every request.
def fetch(sql: str, params) -> list[tuple]:
    with connection.cursor() as cursor:
        execute_prepared(cursor, sql, params, alias=connection.alias)
        return cursor.fetchall()


def execute(sql: str, params) -> int:
    with connection.cursor() as cursor:
        execute_prepared(cursor, sql, params, alias=connection.alias)
        return cursor.rowcount


# --- locking an annotator's own assignment -------------------------------------------------


@cache
def _own_item_sql(vendor: str) -> str:
    return (
        f'SELECT i."id" FROM "{I}" i INNER JOIN "{A}" a ON a."item_id" = i."id" '
        f'WHERE a."id" = %s AND a."annotator_id" = %s' + locking("i")
    )


@cache
def _own_assignment_sql(vendor: str) -> str:
    # Joins the project and item rows (never locked here: the item's lock is taken
    # by the statement before, as every queue write takes it first).
    rounds = f'EXISTS(SELECT 1 FROM "{ROUNDS}" r WHERE r."project_id" = a."project_id")'
    # Whether any lease of the project is past its time (the partial index
    # assignment_open_leases answers it), so a lease that follows looks for them only then.
    stale = (
        f'EXISTS(SELECT 1 FROM "{A}" s WHERE s."project_id" = a."project_id" '
        f'AND s."state" = %s AND s."expires_at" <= %s)'
    )
    categories = work_categories_json_sql('a."project_id"') or "NULL"
    return (
        f"SELECT {columns(Assignment, 'a')}, {columns(Project, 'p')}, {columns(Item, 'i')}, "
        f'{rounds}, {stale}, {categories} FROM "{A}" a '
        f'INNER JOIN "{P}" p ON p."id" = a."project_id" '
        f'INNER JOIN "{I}" i ON i."id" = a."item_id" WHERE a."id" = %s' + locking("a")
    )


def own_item_lock(assignment_id: int, annotator_id: int) -> int | None:
    """Lock the item of the annotator's assignment; its id, or None if it is not theirs."""
    rows = fetch(_own_item_sql(connection.vendor), [assignment_id, annotator_id])
    return rows[0][0] if rows else None


def own_assignment_lock(assignment_id: int, now) -> Assignment:
    """The assignment, locked, with its project and item, ``project_rounds``, ``stale_leases``
    (whether the project has leases past their time at ``now``) and ``work_categories``
    (the project's, as selectors.work_categories gives them; None where not read here)."""
    (row,) = fetch(_own_assignment_sql(connection.vendor), [State.LEASED, when(now), assignment_id])
    assignment = build(Assignment, row)
    at = width(Assignment)
    assignment.project = build(Project, row, at)
    at += width(Project)
    assignment.item = build(Item, row, at)
    assignment.project_rounds = bool(row[at + width(Item)])
    assignment.stale_leases = bool(row[at + width(Item) + 1])
    assignment.work_categories = (
        None
        if connection.vendor != "postgresql"
        else work_categories_from_json(row[at + width(Item) + 2], assignment.project)
    )
    return assignment


def project_by_slug(slug: str) -> Project | None:
    """The project a next-item URL names (read on every such request)."""
    rows = fetch(f'SELECT {columns(Project, "p")} FROM "{P}" p WHERE p."slug" = %s', [slug])
    return build(Project, rows[0]) if rows else None


def assignment_language(assignment_id) -> str | None:
    """The language of the project of the assignment a submit's URL names."""
    rows = fetch(
        f'SELECT p."language" FROM "{P}" p INNER JOIN "{A}" a ON a."project_id" = p."id" '
        f'WHERE a."id" = %s',
        [assignment_id],
    )
    return rows[0][0] if rows else None


# --- leasing ---------------------------------------------------------------------------------


@cache
def _open_leases_sql(vendor: str) -> str:
    return (
        f"SELECT {columns(Assignment, 'a')}, {columns(Item, 'i')} "
        f'FROM "{A}" a INNER JOIN "{I}" i ON i."id" = a."item_id" '
        f'WHERE a."project_id" = %s AND a."state" = %s '
        f'AND (a."annotator_id" = %s OR a."expires_at" <= %s) '
        f'ORDER BY (a."annotator_id" = %s) DESC, a."expires_at" LIMIT %s'
    )


def open_leases(project_id: int, annotator_id: int, now, limit: int) -> list[Assignment]:
    """The annotator's open lease (first, if any) and leases past their time, with items."""
    rows = fetch(
        _open_leases_sql(connection.vendor),
        [project_id, State.LEASED, annotator_id, when(now), annotator_id, limit],
    )
    found = []
    for row in rows:
        assignment = build(Assignment, row)
        assignment.item = build(Item, row, width(Assignment))
        found.append(assignment)
    return found


@cache
def _membership_sql(vendor: str) -> str:
    return (
        f'SELECT EXISTS(SELECT 1 FROM "{ROUNDS}" r WHERE r."project_id" = m."project_id"), '
        f"{columns(Qualification, 'q')}, {columns(QualityPolicy, 'qp')} "
        f'FROM "{MEMBERS}" m LEFT OUTER JOIN "{QUALIFICATIONS}" q '
        f'ON q."project_id" = m."project_id" AND q."annotator_id" = m."annotator_id" '
        f'LEFT OUTER JOIN "{POLICIES}" qp ON qp."project_id" = m."project_id" '
        f'WHERE m."project_id" = %s AND m."annotator_id" = %s'
    )


def membership(project_id: int, annotator_id: int):
    """None for a non-member; else (whether the project has qualification rounds, the
    annotator's Qualification or None, the project's QualityPolicy or None), unlocked."""
    rows = fetch(_membership_sql(connection.vendor), [project_id, annotator_id])
    if not rows:
        return None
    row = rows[0]
    qualification = build(Qualification, row, 1) if row[1] is not None else None
    at = 1 + width(Qualification)
    policy = build(QualityPolicy, row, at) if row[at] is not None else None
    return bool(row[0]), qualification, policy


def order_by(order, fields: dict[str, str]) -> str:
    """A strategy's order (rules.Key steps) as the ORDER BY of Item rows aliased ``i``.

    ``fields``: the Item field behind each fact (queue.COLUMNS).
    """
    steps = []
    for key in order:
        if key is rules.RANDOM:
            steps.append("RANDOM()")
            continue
        name = fields[key.field]
        field = Item._meta.pk if name == "pk" else Item._meta.get_field(name)
        column = f'i."{field.column}"'
        steps.append(f"{column} DESC" if key.descending else column)
    return ", ".join(steps)


@cache
def _open_item_sql(vendor: str, wanting: str, order: str) -> str:
    return (
        f'SELECT {columns(Item, "i")} FROM "{I}" i WHERE i."project_id" = %s AND ({wanting}) '
        f'AND NOT EXISTS(SELECT 1 FROM "{A}" t WHERE t."item_id" = i."id" '
        f'AND t."annotator_id" = %s AND t."state" IN (%s, %s, %s)) '
        # Gold items only ever come as controls or in rounds.
        f'AND NOT EXISTS(SELECT 1 FROM "{GOLD}" g WHERE g."item_id" = i."id") '
        f"ORDER BY {order} LIMIT 1" + locking("i", skip_locked=True)
    )


def _with_assignments(picking: str) -> str:
    """``picking`` (one Item row, locked) followed by the item's assignments, one row each."""
    return (
        f"WITH picked AS ({picking}) SELECT picked.*, {columns(Assignment, 'a')} "
        f'FROM picked LEFT OUTER JOIN "{A}" a ON a."item_id" = picked."id"'
    )


def _picked(rows) -> Item | None:
    """The item of ``_with_assignments``' rows, its assignments as ``seen_assignments``.

    They are read as the statement began, which may be before another request
    that held the item committed: ``lease_rows`` reads them again when they do not
    add up to the locked item's count.
    """
    if not rows:
        return None
    item = build(Item, rows[0])
    at = width(Item)
    item.seen_assignments = [build(Assignment, row, at) for row in rows if row[at] is not None]
    return item


def lease_rows(item: Item) -> list[Assignment]:
    """The assignments of the locked ``item``, as of its lock."""
    rows = getattr(item, "seen_assignments", None)
    if rows is None or sum(row.state in Assignment.HOLDING for row in rows) != item.filled_count:
        rows = item_assignments(item.pk)
    return rows


def first_open_item(project_id: int, annotator_id: int, wanting, order: str) -> Item | None:
    """Lock and return the first open item nobody else leases now, with its assignments.

    ``wanting``: (sql, params) of selectors.overlap.wanting_sql; ``order``: ``order_by``'s.
    """
    sql, params = wanting
    rows = fetch(
        _with_assignments(_open_item_sql(connection.vendor, sql, order)),
        [project_id, *params, annotator_id, *Assignment.FINAL],
    )
    return _picked(rows)


@cache
def _control_sql(vendor: str, order: str) -> str:
    return (
        f'SELECT {columns(Item, "i")} FROM "{I}" i WHERE i."project_id" = %s '
        f'AND EXISTS(SELECT 1 FROM "{GOLD}" g WHERE g."item_id" = i."id") '
        f'AND NOT EXISTS(SELECT 1 FROM "{ROUND_GOLD}" rg INNER JOIN "{GOLD}" g '
        f'ON g."id" = rg."golditem_id" WHERE g."item_id" = i."id") '
        f'AND NOT EXISTS(SELECT 1 FROM "{A}" t WHERE t."item_id" = i."id" '
        f'AND t."annotator_id" = %s) '
        f"ORDER BY {order} LIMIT 1" + locking("i", skip_locked=True)
    )


@cache
def _open_count_sql(vendor: str, growing: str) -> str:
    # The ordinary items still open to the annotator: selectors.work.annotator_progress's count.
    return (
        f'(SELECT COUNT(*) FROM "{I}" o WHERE o."project_id" = %s AND ({growing}) '
        f'AND NOT EXISTS(SELECT 1 FROM "{A}" t WHERE t."item_id" = o."id" '
        f'AND t."annotator_id" = %s AND t."state" IN (%s, %s, %s)) '
        f'AND NOT EXISTS(SELECT 1 FROM "{GOLD}" g WHERE g."item_id" = o."id"))'
    )


@cache
def _unseen_count_sql(vendor: str) -> str:
    # The control items the annotator never had: selectors.quality.unseen_controls' count.
    return (
        f'(SELECT COUNT(*) FROM "{I}" u WHERE u."project_id" = %s '
        f'AND EXISTS(SELECT 1 FROM "{GOLD}" g WHERE g."item_id" = u."id") '
        f'AND NOT EXISTS(SELECT 1 FROM "{ROUND_GOLD}" rg INNER JOIN "{GOLD}" g '
        f'ON g."id" = rg."golditem_id" WHERE g."item_id" = u."id") '
        f'AND NOT EXISTS(SELECT 1 FROM "{A}" t WHERE t."item_id" = u."id" '
        f'AND t."annotator_id" = %s))'
    )


def first_control(
    project_id: int, annotator_id: int, order: str, growing
) -> tuple[Item | None, int, int]:
    """Lock and return a control item this annotator never had (selectors.quality.unseen_controls),
    with its assignments, as ``first_open_item`` does; and, in the same statement, how many
    ordinary items are still open to them and how many controls they never had (the counts
    "items left" makes of them: the queue draws the next item's kind from both).

    ``growing``: (sql, params) of selectors.overlap.growing_sql on alias ``o``.
    """
    sql, params = growing
    picking = _control_sql(connection.vendor, order)
    counts = (
        f"SELECT {_open_count_sql(connection.vendor, sql)} AS open_count, "
        f"{_unseen_count_sql(connection.vendor)} AS unseen_count"
    )
    # The counts come even when no control is free (a RIGHT JOIN from the one row of counts).
    statement = (
        f"WITH picked AS ({picking}), counts AS ({counts}) "
        f"SELECT picked.*, {columns(Assignment, 'a')}, counts.open_count, counts.unseen_count "
        f'FROM counts LEFT OUTER JOIN (picked LEFT OUTER JOIN "{A}" a '
        f'ON a."item_id" = picked."id") ON 1 = 1'
    )
    rows = fetch(
        statement,
        [
            project_id,
            annotator_id,
            project_id,
            *params,
            annotator_id,
            *Assignment.FINAL,
            project_id,
            annotator_id,
        ],
    )
    open_count, unseen_count = rows[0][-2:]
    picked = [row[:-2] for row in rows if row[0] is not None]
    return _picked(picked), open_count, unseen_count


@cache
def _slots_sql(vendor: str) -> str:
    return f'SELECT {columns(Assignment, "a")} FROM "{A}" a WHERE a."item_id" = %s'


def item_assignments(item_id: int) -> list[Assignment]:
    return [build(Assignment, row) for row in fetch(_slots_sql(connection.vendor), [item_id])]


def lease_insert(project_id, item_id, annotator_id, slot, now, expires) -> tuple[str, list]:
    """A new lease row (returns its id)."""
    return (
        f'INSERT INTO "{A}" ("project_id", "item_id", "annotator_id", "state", "slot", '
        f'"leased_at", "expires_at", "finished_at", "draft", "draft_saved_at", '
        f'"active_seconds", "skip_reason") VALUES (%s, %s, %s, %s, %s, %s, %s, NULL, NULL, '
        f"NULL, 0.0, '') RETURNING \"id\"",
        [project_id, item_id, annotator_id, State.LEASED, slot, when(now), when(expires)],
    )


def lease_renew(assignment_id: int, slot: int, now, expires) -> tuple[str, list]:
    """An earlier lease of the annotator's on this item leased again (its draft kept)."""
    return (
        f'UPDATE "{A}" SET "state" = %s, "slot" = %s, "leased_at" = %s, "expires_at" = %s, '
        f'"finished_at" = NULL WHERE "id" = %s RETURNING "id"',
        [State.LEASED, slot, when(now), when(expires), assignment_id],
    )


def item_filled_add(item_id: int) -> tuple[str, list]:
    return f'UPDATE "{I}" SET "filled_count" = "filled_count" + 1 WHERE "id" = %s', [item_id]
