"""The annotator's writes on a lease: drafts, submits and skips.

Each locks the item's row first and the assignment's second, the order every
queue write keeps (annotation/services/queue.py), so writers never deadlock.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from annotation.models import Assignment, LabelSet
from annotation.services import queue_sql as sql
from annotation.services.overlap import item_dispute_update
from annotation.services.quality import control_record
from annotation.services.queue import QueueError, items_recount
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
    return _("Your lease on this item expired and the item went back to the pool.")


def _locked_own(assignment_id: int, annotator: User, now) -> Assignment:
    """The annotator's assignment, its item locked first, then the assignment.

    It comes with its project and item, and what a following lease needs:
    ``project_rounds`` (whether the project has qualification rounds, for the
    work gate) and ``stale_leases`` (whether any lease is past its time at ``now``).
    """
    if sql.own_item_lock(assignment_id, annotator.pk) is None:
        raise QueueError(_("No such item is assigned to you."), status=404, code="not_found")
    return sql.own_assignment_lock(assignment_id, now)


def _expire_now(assignment: Assignment, now) -> None:
    assignment.state = State.EXPIRED
    assignment.finished_at = now
    assignment.save(update_fields=["state", "finished_at"])
    items_recount([assignment.item_id])


def _still_leased(assignment: Assignment, now) -> bool:
    """Whether the locked lease can still take labels; one past its time is expired here.

    The expiry is written inside the caller's transaction, which commits before the
    caller refuses the request, so the slot goes back to the pool either way.
    """
    if assignment.state == State.LEASED and assignment.expires_at <= now:
        _expire_now(assignment, now)
    return assignment.state == State.LEASED


def assignment_draft_save(
    *, assignment_id: int, annotator: User, labels, active_seconds=None
) -> Assignment:
    """Keep the labels the annotator has so far, so a reload or another device resumes them."""
    now = timezone.now()
    with transaction.atomic():
        assignment = _locked_own(assignment_id, annotator, now)
        if _still_leased(assignment, now):
            keys = assignment.project.category_keys()
            assignment.draft = assignment.item.labels_clean(labels, keys)
            assignment.active_seconds = _active(assignment, active_seconds, now)
            assignment.draft_saved_at = now
            assignment.save(update_fields=["draft", "active_seconds", "draft_saved_at"])
            return assignment
    raise QueueError(_ended_message(assignment))


def _store(assignment: Assignment, annotator: User, labels, active_seconds, keys, now):
    """Write the label set of the locked, still leased ``assignment``; returns it and the standing."""
    cleaned = assignment.item.labels_clean(labels, keys)
    active = _active(assignment, active_seconds, now)
    # One statement on PostgreSQL: the label set, the assignment and the item's
    # count written, and the annotator's standing locked and read for control_record.
    pk, standing_row = sql.write_all(
        [
            sql.label_set_insert(assignment, annotator.pk, cleaned, active, now),
            sql.assignment_submitted(assignment.pk, active, now),
            sql.item_submitted_add(assignment.item_id),
        ],
        read=sql.standing_read(assignment.project_id, annotator.pk, assignment.item_id),
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
        standing=sql.standing_from(standing_row),
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
        if assignment.state in (State.SUBMITTED, State.SKIPPED):
            raise QueueError(_ended_message(assignment))
        assignment.state = State.SKIPPED
        assignment.skip_reason = reason
        assignment.finished_at = now
        assignment.save(update_fields=["state", "skip_reason", "finished_at"])
        items_recount([assignment.item_id])
    return assignment
