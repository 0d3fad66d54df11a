"""Researchers' lease moves: releasing an open lease, or moving it to another member.

Both lock the item's row first and the assignment's second, as every queue
write does (annotation/services/queue.py).
"""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.utils import timezone

from annotation.models import Assignment, Item, Project
from annotation.selectors.work import is_member
from annotation.services.quality import QualityError, work_gate
from annotation.services.queue import QueueError, items_recount
from core.models import User
from core.services.audit import audit_record

State = Assignment.State


def _locked_lease(assignment_id: int, project: Project) -> Assignment:
    item_id = (
        Assignment.objects.filter(pk=assignment_id, project=project)
        .values_list("item_id", flat=True)
        .first()
    )
    if item_id is None:
        raise QueueError("No such assignment in this project.", status=404, code="not_found")
    Item.objects.select_for_update().filter(pk=item_id).first()
    assignment = (
        Assignment.objects.select_for_update(of=("self",))
        .select_related("annotator", "item")
        .get(pk=assignment_id)
    )
    if assignment.state != State.LEASED:
        raise QueueError(
            f"This assignment is {assignment.get_state_display().lower()}, not an open lease."
        )
    return assignment


# Why a member cannot be given a lease, in the researcher's words: the quality gate's own
# messages speak to the annotator ("Please take the qualification rounds first").
_CANNOT_WORK = {
    "not_qualified": "{name} has not passed the qualification rounds yet.",
    "eliminated": "{name} did not pass the qualification rounds.",
    "paused": "{name} is paused in this project.",
    "blocked": "{name} is blocked in this project.",
}


def _may_take_work(project: Project, annotator: User) -> None:
    """Refuse a lease for anyone the queue itself would give no work (the same gate)."""
    try:
        work_gate(project=project, annotator=annotator)
    except QualityError as exc:
        reason = _CANNOT_WORK.get(exc.code, "{name} cannot take work in this project now.")
        raise QueueError(
            reason.format(name=annotator.username), status=400, code=exc.code
        ) from None


def assignment_release(
    *, assignment_id: int, project: Project, actor: User, reason: str = ""
) -> Assignment:
    """End an open lease now, so the item goes back to the pool (its draft is kept)."""
    now = timezone.now()
    with transaction.atomic():
        assignment = _locked_lease(assignment_id, project)
        assignment.state = State.RELEASED
        assignment.finished_at = now
        assignment.save(update_fields=["state", "finished_at"])
        items_recount([assignment.item_id])
        audit_record(
            actor=actor,
            action="annotation.lease_release",
            subject=project.subject,
            reason=reason,
            details={"assignment": assignment.pk, "annotator": assignment.annotator.username},
        )
    return assignment


def assignment_reassign(
    *, assignment_id: int, project: Project, to_annotator: User, actor: User, reason: str = ""
) -> Assignment:
    """Move an open lease to another member, who gets a fresh lease time on the same slot."""
    now = timezone.now()
    try:
        with transaction.atomic():
            assignment = _locked_lease(assignment_id, project)
            if to_annotator.pk == assignment.annotator_id:
                raise QueueError("The item is already leased to this annotator.")
            if not is_member(project=project, annotator=to_annotator):
                raise QueueError(
                    f"{to_annotator.username} is not an annotator of this project.", status=400
                )
            _may_take_work(project, to_annotator)
            theirs = Assignment.objects.filter(item=assignment.item, annotator=to_annotator).first()
            if theirs is not None and theirs.state in Assignment.FINAL:
                raise QueueError(
                    f"{to_annotator.username} already has this item "
                    f"({theirs.get_state_display().lower()}); nobody labels an item twice."
                )
            if Assignment.objects.filter(
                project=project, annotator=to_annotator, state=State.LEASED
            ).exists():
                raise QueueError(
                    f"{to_annotator.username} is working on another item; release that lease first."
                )
            slot = assignment.slot
            assignment.state = State.RELEASED
            assignment.finished_at = now
            assignment.save(update_fields=["state", "finished_at"])
            fields = {
                "state": State.LEASED,
                "slot": slot,
                "leased_at": now,
                "expires_at": now + project.lease_time,
                "finished_at": None,
            }
            if theirs is not None:
                Assignment.objects.filter(pk=theirs.pk).update(**fields)
                new = Assignment.objects.get(pk=theirs.pk)
            else:
                new = Assignment.objects.create(
                    project=project, item=assignment.item, annotator=to_annotator, **fields
                )
            audit_record(
                actor=actor,
                action="annotation.lease_reassign",
                subject=project.subject,
                reason=reason,
                details={
                    "item": assignment.item_id,
                    "from": assignment.annotator.username,
                    "to": to_annotator.username,
                },
            )
    except IntegrityError:
        raise QueueError(
            "The lease changed while it was being moved; reload and try again."
        ) from None
    return new
