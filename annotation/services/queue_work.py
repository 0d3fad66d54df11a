"""The annotator's writes on a lease: drafts, submits and skips.

Each locks the item's row first and the assignment's second, the order every
queue write keeps (annotation/services/queue.py), so writers never deadlock.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from annotation.assignment import strategy as rules
from annotation.models import Assignment, GoldItem, LabelSet
from annotation.services import queue_sql as sql
from annotation.services import queue_sql_store as store_sql
from annotation.services.overlap import item_dispute_update
from annotation.services.quality import control_record
from annotation.services.queue import QueueError, items_recount, quality_gate
from annotation.services.reports.jobs import report_labels_arrived
from core.models import User

State = Assignment.State
MAX_SKIP_REASON = 1000


def _active(assignment: Assignment, reported, now) -> float:
    """Active seconds as the page measured them, but never growing faster than the clock."""
    if reported is None:
        return assignment.active_seconds
    try:
        reported = float(reported)
    except (TypeError, ValueError):
        raise ValidationError({"active_seconds": ["Send a number of seconds."]}) from None
    since = assignment.draft_saved_at or assignment.leased_at
    ceiling = assignment.active_seconds + max((now - since).total_seconds(), 0) + 5
    return max(assignment.active_seconds, min(max(reported, 0.0), ceiling))


def _ended_message(assignment: Assignment) -> str:
    if assignment.state == State.SUBMITTED:
        return _("You already submitted this item; your first labels are kept.")
    if assignment.state == State.SKIPPED:
        return _("You skipped this item, so it cannot be submitted.")
    if assignment.state == State.RELEASED:
        return _("The researcher released this item from you; ask for the next item.")
    return _(
        "Your time on this item ran out and it is no longer yours: another annotator has "
        "taken it over, or it has all the labels it needs. Your labels for it were not kept; "
        "go on with the next item."
    )


def _locked_own(assignment_id: int, annotator: User, now) -> Assignment:
    """The annotator's assignment, its item locked first, then the assignment.

    It comes with its project and item, and what a following lease needs:
    ``project_rounds`` (whether the project has qualification rounds, for the
    work gate) and ``stale_leases`` (whether any lease is past its time at ``now``).
    """
    if sql.own_item_lock(assignment_id, annotator.pk) is None:
        raise QueueError(_("No such item is assigned to you."), status=404, code="not_found")
    return sql.own_assignment_lock(assignment_id, now)


def _still_leased(assignment: Assignment, now, *, draft: bool = False) -> bool:
    """Whether the locked assignment can still take labels (a draft, with ``draft``).

    A lease whose time ran out is the annotator's still while the item needs
    their label: one nobody swept yet still holds its slot, and an expired one
    takes a free slot back if the item would take a new holder (rules.may_hold,
    the lease's own rule), so a late label set is kept but an item never gets
    more than its overlap and nobody loses an item they took over. The time only
    frees the slot for others; it is not a deadline for the annotator.
    """
    if assignment.state == State.LEASED and assignment.expires_at > now:
        return True
    if assignment.state == State.RELEASED:
        # Blocking or disqualifying someone releases their leases: they hear why (the
        # gate's 403), not that a researcher took this one item back.
        quality_gate(assignment.project, assignment.annotator_id, assignment.project_rounds, None)
    if assignment.state not in (State.LEASED, State.EXPIRED):
        return False
    return _take_back(assignment, now, draft=draft)


def _moved_on() -> QueueError:
    # One open lease per annotator: they were given another item since this one lapsed.
    return QueueError(
        _(
            "Your time on this item ran out and you have been given another item since. "
            "Go on with that one; the labels here were not kept."
        )
    )


def _take_back(assignment: Assignment, now, *, draft: bool) -> bool:
    """Renew the locked, lapsed ``assignment`` for its annotator if the item still needs them.

    Taking a lapsed lease back is new work as much as a lease is: the annotator
    passes the same gate (quality_gate) or is refused with its reason. Control
    items run the same statements as ordinary ones and, as their annotator sees
    it, the same rule (rules.take_back_slot).
    """
    project, item = assignment.project, assignment.item
    # The standing is read by the annotator's id (the filter takes it): no User row needed.
    quality_gate(project, assignment.annotator_id, assignment.project_rounds, None)
    control = GoldItem.objects.filter(item_id=item.pk).exists()
    elsewhere = (
        Assignment.objects.filter(
            project_id=assignment.project_id,
            annotator_id=assignment.annotator_id,
            state=State.LEASED,
        )
        .exclude(pk=assignment.pk)
        .exists()
    )
    expires = now + project.lease_time
    if assignment.state == State.LEASED:
        # Nobody swept it: the slot is still the annotator's.
        Assignment.objects.filter(pk=assignment.pk).update(expires_at=expires)
        assignment.expires_at = expires
        return True
    if draft and elsewhere:
        raise _moved_on()
    rows = [
        rules.SlotRow(row.slot, row.state in Assignment.HOLDING, row.state == State.SUBMITTED)
        for row in sql.item_assignments(item.pk)
    ]
    slot = rules.take_back_slot(
        project.overlap(),
        rows=rows,
        slot=assignment.slot,
        control=control,
        filled=item.filled_count,
        submitted=item.submitted_count,
        disputed=item.disputed,
    )
    if slot is None:
        return False
    # A submit while another item is open stores straight from here (its state
    # becomes submitted); anything else is an open lease again.
    state = State.EXPIRED if elsewhere else State.LEASED
    try:
        with transaction.atomic():
            Assignment.objects.filter(pk=assignment.pk).update(
                state=state, slot=slot, expires_at=expires, finished_at=None
            )
    except IntegrityError:
        # Another request of theirs leased them an item just now (one open lease each):
        # nobody else took this one over, so say what did happen.
        raise _moved_on() from None
    # Counted now, as a lease is: the submit that may follow adds only its label set.
    sql.execute(*sql.item_filled_add(item.pk))
    assignment.state, assignment.slot = state, slot
    assignment.expires_at, assignment.finished_at = expires, None
    item.filled_count += 1
    # The lease that may follow looks up the annotator's open one rather than assume none.
    assignment.stale_leases = None
    return True


def assignment_draft_save(
    *, assignment_id: int, annotator: User, labels, active_seconds=None
) -> Assignment:
    """Keep the labels the annotator has so far, so a reload or another device resumes them.

    ``labels=None`` records only the active time and keeps the saved labels.
    """
    now = timezone.now()
    with transaction.atomic():
        assignment = _locked_own(assignment_id, annotator, now)
        if _still_leased(assignment, now, draft=True):
            assignment.active_seconds = _active(assignment, active_seconds, now)
            fields = ["active_seconds"]
            if labels is not None:
                keys = assignment.project.category_keys()
                assignment.draft = assignment.item.labels_clean(labels, keys)
                assignment.draft_saved_at = now
                fields += ["draft", "draft_saved_at"]
            assignment.save(update_fields=fields)
            return assignment
    raise QueueError(_ended_message(assignment))


def _store(assignment: Assignment, annotator: User, labels, active_seconds, keys, now):
    """Write the label set of the locked, still leased ``assignment``; returns it and the standing."""
    cleaned = assignment.item.labels_clean(labels, keys)
    active = _active(assignment, active_seconds, now)
    # One statement on PostgreSQL: the label set, the assignment and the item's
    # count written, and the annotator's standing locked and read for control_record.
    pk, standing_row = store_sql.write_all(
        [
            store_sql.label_set_insert(assignment, annotator.pk, cleaned, active, now),
            store_sql.assignment_submitted(assignment.pk, active, now),
            store_sql.item_submitted_add(assignment.item_id),
        ],
        read=store_sql.standing_read(assignment.project_id, annotator.pk, assignment.item_id),
    )
    label_set = sql.stored(LabelSet(
        pk=pk,
        assignment_id=assignment.pk,
        project_id=assignment.project_id,
        item_id=assignment.item_id,
        annotator_id=annotator.pk,
        labels=cleaned,
        active_seconds=active,
        submitted_at=now,
    ))  # fmt: skip
    # Under the same lock as the count: the queue reads both in one filter.
    item_dispute_update(project=assignment.project, item_id=assignment.item_id, keys=keys)
    # Scores the label set against gold if the item is a control (the label set
    # is kept; selectors.quality leaves it out of the data).
    standing = control_record(
        label_set=label_set,
        keys=keys,
        project=assignment.project,
        standing=store_sql.standing_from(standing_row),
    )
    report_labels_arrived(project_id=assignment.project_id)
    return label_set, standing


def assignment_submit(
    *, assignment_id: int, annotator: User, labels, active_seconds=None
) -> LabelSet:
    """Store the annotator's label set; the first submit of an assignment is the one kept."""
    now = timezone.now()
    with transaction.atomic():
        assignment = _locked_own(assignment_id, annotator, now)
        if _still_leased(assignment, now):
            keys = assignment.project.category_keys()
            label_set, _ = _store(assignment, annotator, labels, active_seconds, keys, now)
            return label_set
    raise QueueError(_ended_message(assignment))


def assignment_skip(*, assignment_id: int, annotator: User, reason: str) -> Assignment:
    """Give an item back with a reason; the annotator is not offered it again."""
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError({"reason": ["Say briefly why you skip this item."]})
    if len(reason) > MAX_SKIP_REASON:
        raise ValidationError({"reason": [f"Keep the reason under {MAX_SKIP_REASON} characters."]})
    now = timezone.now()
    with transaction.atomic():
        assignment = _locked_own(assignment_id, annotator, now)
        if assignment.state == State.SKIPPED:
            if reason == assignment.skip_reason:
                return assignment  # a retry after a lost answer: skipped once
            raise QueueError(_("You already skipped this item; your first reason is kept."))
        if assignment.state == State.SUBMITTED:
            raise QueueError(_ended_message(assignment))
        assignment.state = State.SKIPPED
        assignment.skip_reason = reason
        assignment.finished_at = now
        assignment.save(update_fields=["state", "skip_reason", "finished_at"])
        items_recount([assignment.item_id])
    return assignment
