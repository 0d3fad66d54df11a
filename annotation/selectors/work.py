"""What an annotator's page and API read: their own assignments and progress, nothing else.

These selectors never touch reference labels or other annotators' label sets;
the annotator-facing views only read through them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal

from django.db import connection
from django.db.models import Count, Exists, OuterRef, Q, Sum
from django.http import Http404
from django.utils import timezone

from annotation.assignment import strategy as rules
from annotation.languages import CATEGORY_TEXTS, show_in
from annotation.models import (
    Assignment,
    Category,
    Item,
    Project,
    ProjectMember,
    Qualification,
)
from annotation.selectors.overlap import growing_items
from annotation.selectors.quality import control_rate, unseen_controls
from core.models import User

State = Assignment.State


# The pages promise an hourly rate "after a few minutes of work": one item done in the
# first minute extrapolates to an absurd rate (a $3 item in 64 s is "$168/h").
RATE_AFTER_SECONDS = 120


def is_member(*, project: Project, annotator: User) -> bool:
    """Whether the annotator is in the project (joined by invite or added by the researcher)."""
    return ProjectMember.objects.filter(project=project, annotator=annotator).exists()


def member_by_username(*, project: Project, username: str) -> User | None:
    """The project's annotator with this username, or None.

    None alike for a username nobody has and for someone outside the project, so a
    researcher cannot learn from the answer which usernames exist on the site.
    """
    return User.objects.filter(username=username, memberships__project=project).first()


def annotator_assignment(*, annotator: User, pk: int) -> Assignment:
    """One of the annotator's own assignments (404 for anyone else's)."""
    assignment = (
        Assignment.objects.filter(pk=pk, annotator=annotator)
        .select_related("item", "project")
        .first()
    )
    if assignment is None:
        raise Http404("No such assignment.")
    return assignment


_WORK_CATEGORY_FIELDS = {
    "id", "project_id", "key", "name", "definition", "example", "shortcut", "position",
    "translations",
}  # fmt: skip


def _work_category_attnames() -> tuple[str, ...]:
    # In the model's field order: Model.from_db maps the row's values by it.
    return tuple(
        f.attname for f in Category._meta.concrete_fields if f.attname in _WORK_CATEGORY_FIELDS
    )


def _work_categories_sql(attnames) -> str:
    quote = connection.ops.quote_name
    columns = ", ".join(quote(Category._meta.get_field(name).column) for name in attnames)
    order = ", ".join(quote(name) for name in ("position", "id"))
    table = quote(Category._meta.db_table)
    return f"SELECT {columns} FROM {table} WHERE {quote('project_id')} = %s ORDER BY {order}"


def work_categories_json_sql(project_column: str) -> str | None:
    """``work_categories``' rows as one JSON text, a column for a statement that reads the
    project anyway (the submit's lock), so they cost no statement of their own; PostgreSQL
    only (None elsewhere). ``project_column``: the SQL of the project's id there."""
    if connection.vendor != "postgresql":
        return None
    attnames = _work_category_attnames()
    values = ", ".join(f'c."{Category._meta.get_field(name).column}"' for name in attnames)
    return (
        f'(SELECT json_agg(json_build_array({values}) ORDER BY c."position", c."id")::text '
        f'FROM "{Category._meta.db_table}" c WHERE c."project_id" = {project_column})'
    )


def work_categories_from_json(text: str | None, project: Project) -> list[Category]:
    """What ``work_categories`` gives, from the column ``work_categories_json_sql`` read."""
    attnames = _work_category_attnames()
    rows = json.loads(text) if text else []
    categories = [Category.from_db(connection.alias, attnames, row) for row in rows]
    return show_in(categories, CATEGORY_TEXTS, project.language)


def _from_row(attnames, row) -> Category:
    # A raw cursor skips the fields' converters (the JSON of ``translations``): apply them.
    values = []
    for name, value in zip(attnames, row, strict=True):
        field = Category._meta.get_field(name)
        if hasattr(field, "from_db_value"):
            value = field.from_db_value(value, None, connection)
        values.append(value)
    return Category.from_db(connection.alias, attnames, values)


def work_categories(project: Project) -> list[Category]:
    """The categories as annotators see them, in their order and the project's language
    (display only: never save them).

    Read on every lease and submit: written out in SQL (the same single statement
    the ORM would send) because compiling the queryset cost more CPU than the
    database spent answering it.
    """
    with connection.cursor() as cursor:
        attnames = _work_category_attnames()
        cursor.execute(_work_categories_sql(attnames), [project.pk])
        rows = cursor.fetchall()
    categories = [_from_row(attnames, row) for row in rows]
    return show_in(categories, CATEGORY_TEXTS, project.language)


@dataclass(frozen=True)
class AnnotatorProgress:
    done: int
    skipped: int
    in_hand: int
    left_for_you: int
    active_seconds: float
    earned: Decimal
    hourly: Decimal | None
    target_hourly: Decimal
    currency: str

    @property
    def assigned(self) -> int:
        return self.done + self.in_hand

    @property
    def item_number(self) -> int:
        """The number of the item on screen, counting the items they submitted."""
        return self.done + 1

    @property
    def percent_done(self) -> int:
        total = self.done + self.in_hand + self.left_for_you
        return round(100 * self.done / total) if total else 100

    @property
    def on_target(self) -> bool | None:
        return None if self.hourly is None else self.hourly >= self.target_hourly


def annotator_progress(*, project: Project, annotator: User) -> AnnotatorProgress:
    """Done / assigned, what is left for them and their estimated pay per active hour.

    ``left_for_you`` is the one "items left" number: the home card, the work page
    and the API all show it. It counts the items this annotator could still be
    given besides the one in hand: ordinary items that may still grow under the
    overlap policy (short of k; adaptive: short of k_min, or disputed and short of
    k_max) they have not labelled or skipped, and (for annotators under quality
    control) the control items the queue will still give them among those
    (rules.controls_ahead, the bound the queue itself keeps). So it drops by one with
    each item leased, control or not, and is 0 exactly when the queue has nothing more.
    """
    now = timezone.now()
    mine = Assignment.objects.filter(project=project, annotator=annotator).aggregate(
        done=Count("pk", filter=Q(state=State.SUBMITTED)),
        skipped=Count("pk", filter=Q(state=State.SKIPPED)),
        in_hand=Count("pk", filter=Q(state=State.LEASED, expires_at__gt=now)),
        seconds=Sum("active_seconds", filter=Q(state=State.SUBMITTED)),
    )
    # The item in hand is not "left": it is on screen. Counting it only when its own
    # lease has not filled the item would make the number jump by one at random.
    touched = Assignment.objects.filter(item=OuterRef("pk"), annotator=annotator).filter(
        Q(state__in=Assignment.FINAL) | Q(state=State.LEASED, expires_at__gt=now)
    )
    left = (
        Item.objects.filter(project=project)
        .filter(growing_items(project.overlap()))
        .filter(~Exists(touched))
        .filter(gold__isnull=True)
        .count()
    )
    qualification = (
        Qualification.objects.filter(project=project, annotator=annotator)
        .select_related("project__quality")
        .first()
    )
    if qualification is not None and (
        qualification.state == Qualification.State.ELIMINATED
        or qualification.work_state == Qualification.Work.BLOCKED
    ):
        left = 0  # the queue gives them nothing, now or later (controls.work_gate)
    elif qualification is not None:
        # Controls reach only annotators with a qualification row. Counting the ones
        # still to come makes taking a control lower this number exactly as taking an
        # ordinary item does, so the count never gives a control away.
        rate = control_rate(getattr(qualification.project, "quality", None))
        left += rules.controls_ahead(
            taken=qualification.items_taken,
            given=qualification.controls_given,
            rate=rate,
            ordinary_left=left,
            unseen=unseen_controls(project=project, annotator=annotator).count(),
        )
    seconds = float(mine["seconds"] or 0.0)
    earned = project.pay_per_item * mine["done"]
    hourly = (
        (earned * Decimal(3600) / Decimal(str(seconds))).quantize(Decimal("0.01"))
        if seconds >= RATE_AFTER_SECONDS
        else None
    )
    return AnnotatorProgress(
        done=mine["done"],
        skipped=mine["skipped"],
        in_hand=mine["in_hand"],
        left_for_you=left,
        active_seconds=seconds,
        earned=earned,
        hourly=hourly,
        target_hourly=project.target_hourly_rate,
        currency=project.currency,
    )
