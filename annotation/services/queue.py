"""The work queue's locking adapter: leasing the next item, and expiring leases.

Which item comes next, control or ordinary, and which slot is free are decided by the pure assignment strategy
(annotation/assignment/strategy.py); this module turns its order into the
locking query, locks, retries and keeps the counters. Drafts, submits and skips
are in queue_work.py, researchers' lease moves in queue_moves.py.

Every write that changes an item's slots locks the item's row first and the
assignment's second, so two writers never wait on each other in opposite order.
Annotators asking at the same time lock different items (SKIP LOCKED), and the
unique constraints on Assignment turn any race the locks miss into an
IntegrityError that is retried, never into a k+1-th label set.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import cache

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import (
    Count,
    Exists,
    OuterRef,
    Subquery,
)
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext as _

from annotation.assignment import strategy as rules
from annotation.models import (
    Assignment,
    Item,
    Project,
    Qualification,
    QualityPolicy,
)
from annotation.selectors.overlap import growing_sql, wanting_items, wanting_sql
from annotation.selectors.quality import control_rate
from annotation.services import queue_sql as sql
from annotation.services import queue_sql_store as store_sql
from annotation.services.quality import QualityError, control_draws, control_tally, work_gate
from core.errors import ServiceError
from core.models import User

State = Assignment.State
# The rule every project's queue follows (a project setting could pick from rules.STRATEGIES).
STRATEGY = rules.DEFAULT
# The column behind each fact a strategy may order by.
COLUMNS = {
    "pk": "pk",
    "filled": "filled_count",
    "submitted": "submitted_count",
    "position": "position",
}
LEASE_ATTEMPTS = 8
RETRY_PAUSE = 0.005  # seconds, growing with each attempt: at most 0.18 s in all
STALE_BATCH = 100


class QueueError(ServiceError, ValidationError):
    """A request the queue refuses; ``status`` is the HTTP status an API answers with.

    Still a ValidationError, so forms and callers that catch those keep working.
    """

    def __init__(self, message: str, *, status: int = 409, code: str = "conflict"):
        ValidationError.__init__(self, message, code=code)
        self.status, self.errors = status, {}


def items_recount(item_ids) -> None:
    """Set `filled_count` from the assignments themselves (callers hold the items' locks)."""
    holding = (
        Assignment.objects.filter(item=OuterRef("pk"), state__in=Assignment.HOLDING)
        .order_by()
        .values("item")
        .annotate(n=Count("pk"))
        .values("n")
    )
    Item.objects.filter(pk__in=item_ids).update(filled_count=Coalesce(Subquery(holding), 0))


def leases_expire(*, project: Project, now=None, limit: int = 100, item_ids=None) -> int:
    """Return the slots of leases past their time to the pool; items others hold wait for the next call."""
    now = now or timezone.now()
    if item_ids is None:
        stale = Assignment.objects.filter(project=project, state=State.LEASED, expires_at__lte=now)
        item_ids = list(stale.values_list("item_id", flat=True)[:limit])
    if not item_ids:
        return 0
    with transaction.atomic():
        locked = list(
            Item.objects.filter(pk__in=item_ids)
            .order_by("pk")
            .select_for_update(skip_locked=True)
            .values_list("pk", flat=True)
        )
        if not locked:
            return 0
        expired = Assignment.objects.filter(
            item_id__in=locked, state=State.LEASED, expires_at__lte=now
        ).update(state=State.EXPIRED, finished_at=now)
        items_recount(locked)
    return expired


@dataclass(frozen=True)
class Standing:
    """What a caller already read about the annotator, so the lease does not read it again.

    A submit that leases the next item knows the annotator is a member (they held
    a lease), whether the project has qualification rounds, and their locked
    standing (``qualification``, None without one) with the project's policy. A
    plain next reads the same with its membership check (the standing unlocked,
    as the work gate always read it).
    """

    rounds: bool | None
    qualification: Qualification | None
    policy: object | None = None
    # Whether the submit saw leases past their time in the project (None: not looked).
    stale: bool | None = None


def _membership_check(project: Project, annotator: User) -> Standing:
    """Refuse non-members; returns their standing, read by the same query (unlocked)."""
    found = sql.membership(project.pk, annotator.pk)
    if found is None:
        raise QueueError(_("You are not a member of this project."), status=404, code="not_found")
    rounds, qualification, policy = found
    return Standing(rounds=rounds, qualification=qualification, policy=policy)


def assignment_next(*, project: Project, annotator: User) -> Assignment | None:
    """The annotator's open lease, or a new one on the open item closest to completion.

    None when nothing is left for them: every item has k annotators, or they
    already labelled or skipped the rest.
    """
    for attempt in range(LEASE_ATTEMPTS):
        try:
            with transaction.atomic():
                return _lease(project, annotator)
        except IntegrityError:
            # The same annotator asked twice at once and the other request won (one
            # open lease each), a slot was taken under us, or the open items were all
            # locked by other requests for a moment: look again, after a short pause.
            time.sleep(RETRY_PAUSE * (attempt + 1))
    raise QueueError(_("The queue is busy. Please try again."), status=503, code="busy")


def assignment_lease(*, project: Project, annotator: User, standing: Standing) -> Assignment | None:
    """Lease the next item inside the caller's transaction (a submit's); see ``assignment_next``.

    An IntegrityError means a race was lost: the caller rolls back and tries again.
    """
    return _lease(project, annotator, standing)


def _lease(
    project: Project, annotator: User, standing: Standing | None = None
) -> Assignment | None:
    now = timezone.now()
    if standing is not None and standing.stale is False:
        # The submit before this lease ended the annotator's one open lease in the
        # project, and its locking read saw no lease past its time: nothing to look for.
        open_rows = []
    else:
        # One query finds this annotator's open lease (listed first) and leases past their time.
        open_rows = sql.open_leases(project.pk, annotator.pk, now, STALE_BATCH)
    current = open_rows[0] if open_rows and open_rows[0].annotator_id == annotator.pk else None
    if current is not None and current.expires_at > now:
        current.project = project  # the serializer reads it; no query for it
        return current
    rounds = standing.rounds if standing else None
    if current is None and standing is None:
        # Holding a lease proves membership; anyone else is checked before getting one.
        standing = _membership_check(project, annotator)
        rounds = standing.rounds
    stale = [row.item_id for row in open_rows if row.expires_at <= now and row is not current]
    if stale:
        leases_expire(project=project, now=now, item_ids=stale)
    if current is not None:
        # Its item may be locked by someone else right now: wait for it, this
        # annotator's own old lease has to end before a new one starts.
        Item.objects.select_for_update().filter(pk=current.item_id).first()
        Assignment.objects.filter(pk=current.pk, state=State.LEASED).update(
            state=State.EXPIRED, finished_at=now
        )
        items_recount([current.item_id])

    # Only qualified, active annotators get new work (annotation.services.quality).
    qualification = quality_gate(project, annotator, rounds, standing)
    choice = _next_choice(project, annotator, qualification, standing)
    item, is_control = choice.item, choice.control
    if item is None:
        if _open_items(project, annotator).exists():
            # Every open item is locked by someone else's request right now, not
            # taken: look again (assignment_next retries) rather than tell the
            # annotator there is nothing left.
            raise IntegrityError("open items are being leased right now")
        return None
    tally = control_tally(qualification=qualification, control=is_control)
    return _lease_item(project, annotator, item, control=is_control, now=now, tally=tally)


def _next_choice(project: Project, annotator: User, qualification, standing: Standing | None):
    """The next item for ``annotator`` and whether it is a control (rules.choose).

    Some of the work is control items (annotation.services.quality). Both candidates, the
    next ordinary item and a control, are looked up and locked (skipping rows other requests
    hold) on every request, and either is leased by the same code, so the statements run and
    the time they take do not depend on which kind the annotator gets. (Locking only the
    wanted one is not enough: FOR UPDATE changes the plan's cost.) The unused lock ends with
    this short transaction.
    """
    ordinary = sql.first_open_item(
        project.pk, annotator.pk, wanting_sql(project.overlap()), _order_sql(STRATEGY.order)
    )
    control, controls_left, open_count = None, None, 0
    if qualification is not None:
        # The same rows as control_candidates (selectors.quality.unseen_controls), and the
        # counts "items left" makes (rules.controls_ahead), so the queue gives exactly what
        # it promised and draws each item's kind from them (rules.choose).
        control, open_count, unseen = sql.first_control(
            project.pk,
            annotator.pk,
            _order_sql(STRATEGY.control_order),
            growing_sql(project.overlap(), "o"),
        )
        # A caller's standing carries the policy row (None: the project has none yet).
        policy = (
            standing.policy
            if standing is not None
            else QualityPolicy.objects.filter(project=project).first()
        )
        controls_left = rules.controls_ahead(
            taken=qualification.items_taken,
            given=qualification.controls_given,
            rate=control_rate(policy),
            ordinary_left=open_count,
            unseen=unseen,
        )
    return rules.choose(
        ordinary=ordinary,
        control=control,
        controls_left=controls_left,
        ordinary_left=open_count,
        rng=control_draws(),
    )


def _open_items(project: Project, annotator: User):
    """Items that want another label set (the overlap rule) this annotator has not had, in order."""
    touched = Assignment.objects.filter(
        item=OuterRef("pk"), annotator=annotator, state__in=Assignment.FINAL
    )
    items = (
        Item.objects.filter(project=project)
        .filter(wanting_items(project.overlap()))
        .filter(~Exists(touched))
        .filter(gold__isnull=True)  # gold items only ever come as controls or in rounds
    )
    return _ordered(items, STRATEGY.order)


def _ordered(items, order):
    """``items`` in a strategy's order, as the database applies it (rules.sort_candidates)."""
    return items.order_by(*(_column(key) for key in order))


@cache
def _order_sql(order: tuple[rules.Key, ...]) -> str:
    """A strategy's order as the ORDER BY of the hot queries (queue_sql.py)."""
    return sql.order_by(order, COLUMNS)


def _column(key: rules.Key) -> str:
    if key is rules.RANDOM:
        return "?"
    return f"-{COLUMNS[key.field]}" if key.descending else COLUMNS[key.field]


def _lease_item(
    project: Project, annotator: User, item: Item, *, control: bool, now, tally=None
) -> Assignment:
    """Give ``annotator`` a slot on the locked ``item``; ``tally``: control_tally's UPDATE."""
    overlap = project.overlap()
    if not rules.may_hold(
        overlap,
        control=control,
        filled=item.filled_count,
        submitted=item.submitted_count,
        disputed=item.disputed,
    ):
        # The locked row no longer wants a holder (settled since the query saw it).
        raise IntegrityError("item no longer wanted")
    rows = sql.lease_rows(item)
    slot = rules.free_slot(
        per_item=overlap.ceiling,
        rows=[rules.SlotRow(row.slot, row.state in Assignment.HOLDING) for row in rows],
        control=control,
    )
    if slot is None:  # the counter was behind; fix it and let the retry pick again
        items_recount([item.pk])
        raise IntegrityError("no free slot")
    expires = now + project.lease_time
    assignment = next((row for row in rows if row.annotator_id == annotator.pk), None)
    if assignment is not None and assignment.state in Assignment.HOLDING:
        # Leased by another request of this annotator's that committed while this one
        # waited for the item: not a lease to renew (that would count it twice); the
        # retry finds it as their open lease.
        raise IntegrityError("the annotator already holds this item")
    if assignment is not None:
        # An earlier lease of theirs expired or was released: it comes back with its draft.
        lease = sql.lease_renew(assignment.pk, slot, now, expires)
    else:
        lease = sql.lease_insert(project.pk, item.pk, annotator.pk, slot, now, expires)
    # Counts holders on control items too, as items_recount does.
    writes = [lease, sql.item_filled_add(item.pk)] + ([tally] if tally else [])
    pk, _ = store_sql.write_all(writes)
    if assignment is None:
        assignment = sql.stored(Assignment(pk=pk, project_id=project.pk, item_id=item.pk,
                                           annotator_id=annotator.pk))  # fmt: skip
    assignment.state, assignment.slot = State.LEASED, slot
    assignment.leased_at, assignment.expires_at, assignment.finished_at = now, expires, None
    item.filled_count += 1
    assignment.project = project
    assignment.item = item
    return assignment


def quality_gate(project: Project, annotator: User, rounds, standing: Standing | None):
    """The work gate every new lease passes (and a lapsed one taken back), as a QueueError."""
    known = {"qualification": standing.qualification, "read": False} if standing else {}
    try:
        return work_gate(project=project, annotator=annotator, rounds=rounds, **known)
    except QualityError as exc:
        raise QueueError(exc.message, status=exc.status, code=exc.code) from None
