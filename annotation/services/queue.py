"""The work queue: leases, drafts, submits, skips and researchers' lease moves.

Every write that changes an item's slots locks the item's row first and the
assignment's second, so two writers never wait on each other in opposite order.
Annotators asking at the same time lock different items (SKIP LOCKED), and the
unique constraints on Assignment turn any race the locks miss into an
IntegrityError that is retried, never into a k+1-th label set.
"""

from __future__ import annotations

import time

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import (
    BooleanField,
    Count,
    Exists,
    ExpressionWrapper,
    F,
    OuterRef,
    Q,
    Subquery,
)
from django.db.models.functions import Coalesce
from django.utils import timezone

from annotation.labels import LabelProblem, clean_labels
from annotation.models import Assignment, Item, LabelSet, Project, ProjectMember
from annotation.services.quality import (
    QualityError,
    control_candidates,
    control_record,
    control_tally,
    control_wanted,
    work_gate,
)
from annotation.services.reports.jobs import report_labels_arrived
from core.models import User
from core.services.audit import audit_record

State = Assignment.State
MAX_SKIP_REASON = 1000
LEASE_ATTEMPTS = 8
RETRY_PAUSE = 0.005  # seconds, growing with each attempt: at most 0.18 s in all
STALE_BATCH = 100


class QueueError(ValidationError):
    """A request the queue refuses; ``status`` is the HTTP status an API answers with."""

    def __init__(self, message: str, *, status: int = 409, code: str = "conflict"):
        super().__init__(message, code=code)
        self.status = status


def _category_keys(project: Project) -> list[str]:
    return list(project.categories.order_by("position", "pk").values_list("key", flat=True))


def _recount(item_ids) -> None:
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
        _recount(locked)
    return expired


def _membership_check(project: Project, annotator: User) -> None:
    if not ProjectMember.objects.filter(project=project, annotator=annotator).exists():
        raise QueueError("You are not a member of this project.", status=404, code="not_found")


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
    raise QueueError("The queue is busy. Please try again.", status=503, code="busy")


def _lease(project: Project, annotator: User) -> Assignment | None:
    now = timezone.now()
    # One query finds this annotator's open lease (listed first) and leases past their time.
    mine_first = ExpressionWrapper(Q(annotator=annotator), output_field=BooleanField())
    open_rows = list(
        Assignment.objects.filter(project=project, state=State.LEASED)
        .filter(Q(annotator=annotator) | Q(expires_at__lte=now))
        .order_by(mine_first.desc(), "expires_at")
        .select_related("item")[:STALE_BATCH]
    )
    current = open_rows[0] if open_rows and open_rows[0].annotator_id == annotator.pk else None
    if current is not None and current.expires_at > now:
        return current
    if current is None:
        # Holding a lease proves membership; anyone else is checked before getting one.
        _membership_check(project, annotator)
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
        _recount([current.item_id])

    # Quality control (annotation.services.quality): only qualified, active
    # annotators get new work, and some of it is control items. Both candidates,
    # the next ordinary item and a control, are looked up and locked (skipping
    # rows other requests hold) on every request, and either is leased by the
    # same code, so the statements run and the time they take do not depend on
    # which kind the annotator gets. (Locking only the wanted one is not enough:
    # FOR UPDATE changes the plan's cost.) The unused lock ends with this short
    # transaction.
    qualification = _quality_gate(project, annotator)
    wants_control = control_wanted(project=project, qualification=qualification)
    ordinary = _first_unlocked(_open_items(project, annotator))
    control = None
    if qualification is not None:
        control = _first_unlocked(control_candidates(project=project, annotator=annotator))
    if wants_control and control is not None:
        item, is_control = control, True
    else:
        item, is_control = ordinary, False
    if item is None:
        if _open_items(project, annotator).exists():
            # Every open item is locked by someone else's request right now, not
            # taken: look again (assignment_next retries) rather than tell the
            # annotator there is nothing left.
            raise IntegrityError("open items are being leased right now")
        return None
    assignment = _lease_item(project, annotator, item, control=is_control, now=now)
    control_tally(qualification=qualification, control=is_control)
    return assignment


def _open_items(project: Project, annotator: User):
    """Items still short of k label sets that this annotator has not had, fullest first."""
    touched = Assignment.objects.filter(
        item=OuterRef("pk"), annotator=annotator, state__in=Assignment.FINAL
    )
    return (
        Item.objects.filter(project=project, filled_count__lt=project.annotators_per_item)
        .filter(~Exists(touched))
        .filter(gold__isnull=True)  # gold items only ever come as controls or in rounds
        .order_by("-filled_count", "-submitted_count", "position", "pk")
    )


def _first_unlocked(items) -> Item | None:
    """Lock and return the first item nobody else is leasing right now."""
    return items.select_for_update(skip_locked=True, of=("self",)).first()


def _lease_item(project: Project, annotator: User, item: Item, *, control: bool, now) -> Assignment:
    """Give ``annotator`` a slot on the locked ``item``."""
    k = project.annotators_per_item
    rows = list(Assignment.objects.filter(item=item))
    if control:
        # Any number of annotators label a control; slots past k keep the
        # one-holder-per-slot constraint meaningful for them.
        free = [k + len(rows)]
    else:
        taken = {row.slot for row in rows if row.state in Assignment.HOLDING}
        free = sorted(set(range(k)) - taken)
    if not free:  # the counter was behind; fix it and let the retry pick again
        _recount([item.pk])
        raise IntegrityError("no free slot")
    expires = now + project.lease_time
    previous = next((row for row in rows if row.annotator_id == annotator.pk), None)
    if previous is not None:
        # An earlier lease of theirs expired or was released: it comes back with its draft.
        previous.state = State.LEASED
        previous.slot = free[0]
        previous.leased_at = now
        previous.expires_at = expires
        previous.finished_at = None
        previous.save(update_fields=["state", "slot", "leased_at", "expires_at", "finished_at"])
        assignment = previous
    else:
        assignment = Assignment.objects.create(
            project=project,
            item=item,
            annotator=annotator,
            slot=free[0],
            leased_at=now,
            expires_at=expires,
        )
    # Counts holders on control items too, as _recount does.
    Item.objects.filter(pk=item.pk).update(filled_count=F("filled_count") + 1)
    item.filled_count += 1
    assignment.item = item
    return assignment


def _quality_gate(project: Project, annotator: User):
    try:
        return work_gate(project=project, annotator=annotator)
    except QualityError as exc:
        raise QueueError(exc.message, status=exc.status, code=exc.code) from None


def _clean(item: Item, labels, keys: list[str]) -> list[list[str]]:
    try:
        return clean_labels(labels, sentences=len(item.sentences), keys=keys)
    except LabelProblem as exc:
        raise ValidationError({"labels": [str(exc)]}) from None


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
        return "You already submitted this item; your first labels are kept."
    if assignment.state == State.SKIPPED:
        return "You skipped this item, so it cannot be submitted."
    if assignment.state == State.RELEASED:
        return "The researcher released this item from you; ask for the next item."
    return "Your lease on this item expired and the item went back to the pool."


def _locked_own(assignment_id: int, annotator: User) -> Assignment:
    """The annotator's assignment, its item locked first, then the assignment."""
    item_id = (
        Item.objects.filter(assignments__pk=assignment_id, assignments__annotator=annotator)
        .select_for_update(of=("self",))
        .values_list("pk", flat=True)
        .first()
    )
    if item_id is None:
        raise QueueError("No such item is assigned to you.", status=404, code="not_found")
    return (
        Assignment.objects.select_for_update(of=("self",))
        .select_related("project", "item")
        .get(pk=assignment_id)
    )


def _expire_now(assignment: Assignment, now) -> None:
    assignment.state = State.EXPIRED
    assignment.finished_at = now
    assignment.save(update_fields=["state", "finished_at"])
    _recount([assignment.item_id])


def assignment_draft_save(
    *, assignment_id: int, annotator: User, labels, active_seconds=None
) -> Assignment:
    """Keep the labels the annotator has so far, so a reload or another device resumes them."""
    now = timezone.now()
    with transaction.atomic():
        assignment = _locked_own(assignment_id, annotator)
        if assignment.state == State.LEASED and assignment.expires_at <= now:
            _expire_now(assignment, now)
        elif assignment.state == State.LEASED:
            keys = _category_keys(assignment.project)
            assignment.draft = _clean(assignment.item, labels, keys)
            assignment.active_seconds = _active(assignment, active_seconds, now)
            assignment.draft_saved_at = now
            assignment.save(update_fields=["draft", "active_seconds", "draft_saved_at"])
            return assignment
    raise QueueError(_ended_message(assignment))


def assignment_submit(
    *, assignment_id: int, annotator: User, labels, active_seconds=None
) -> LabelSet:
    """Store the annotator's label set; the first submit of an assignment is the one kept."""
    now = timezone.now()
    with transaction.atomic():
        assignment = _locked_own(assignment_id, annotator)
        if assignment.state == State.LEASED and assignment.expires_at <= now:
            _expire_now(assignment, now)
        elif assignment.state == State.LEASED:
            keys = _category_keys(assignment.project)
            cleaned = _clean(assignment.item, labels, keys)
            active = _active(assignment, active_seconds, now)
            label_set = LabelSet.objects.create(
                assignment=assignment,
                project_id=assignment.project_id,
                item_id=assignment.item_id,
                annotator=annotator,
                labels=cleaned,
                active_seconds=active,
                submitted_at=now,
            )
            Assignment.objects.filter(pk=assignment.pk).update(
                state=State.SUBMITTED, finished_at=now, active_seconds=active, draft=None
            )
            Item.objects.filter(pk=assignment.item_id).update(
                submitted_count=F("submitted_count") + 1
            )
            # Scores the label set against gold if the item is a control (the
            # label set is kept; selectors.quality leaves it out of the data).
            control_record(label_set=label_set, keys=keys)
            report_labels_arrived(project_id=assignment.project_id)
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
        assignment = _locked_own(assignment_id, annotator)
        if assignment.state in (State.SUBMITTED, State.SKIPPED):
            raise QueueError(_ended_message(assignment))
        assignment.state = State.SKIPPED
        assignment.skip_reason = reason
        assignment.finished_at = now
        assignment.save(update_fields=["state", "skip_reason", "finished_at"])
        _recount([assignment.item_id])
    return assignment


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
        _recount([assignment.item_id])
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
            if not ProjectMember.objects.filter(project=project, annotator=to_annotator).exists():
                raise QueueError(
                    f"{to_annotator.username} is not an annotator of this project.", status=400
                )
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
