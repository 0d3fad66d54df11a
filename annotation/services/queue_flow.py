"""Submit and lease the next item in one request: the work page's one-request-per-item flow.

One transaction stores the label set and leases the annotator's next item, so
an item costs the annotator one round trip and the database one commit. Every
rule stays in its one home: the submit's in queue_work.py, the lease's in
queue.py (with the pure strategy), controls and the work gate in
services/quality. The lease reuses what the submit has just read and locked
(membership, the annotator's standing, the categories), so it costs no query
twice. The response looks the same whether the next item is a control or not.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy

from annotation.models import Assignment, Category, LabelSet
from annotation.selectors.work import work_categories
from annotation.services.queue import (
    LEASE_ATTEMPTS,
    RETRY_PAUSE,
    QueueError,
    Standing,
    assignment_lease,
    assignment_next,
)
from annotation.services.queue_work import (
    _ended_message,
    _locked_own,
    _still_leased,
    _store,
    assignment_submit,
)
from core.models import User

State = Assignment.State
BUSY = gettext_lazy("The queue is busy. Please try again.")
TOO_SOON = gettext_lazy(
    "This item appeared only a moment ago, so it was not submitted. Look at it, then submit."
)


@dataclass(frozen=True)
class Submitted:
    """A stored label set and the annotator's next lease (None: nothing left, or ``refusal``)."""

    label_set: LabelSet
    next: Assignment | None
    refusal: QueueError | None = None  # paused by this very label set, blocked, a busy queue
    categories: list[Category] = field(default_factory=list)
    replayed: bool = False  # a repeated request: the labels were stored by an earlier one


def assignment_submit_next(
    *, assignment_id: int, annotator: User, labels, active_seconds=None, settle_seconds: float = 0.0
) -> Submitted:
    """Store the label set and lease the next item in the same transaction.

    A lost race while leasing (IntegrityError) rolls both back and the pair is
    tried again, so the labels are stored exactly once either way. Repeating a
    submit that was stored (a retry after a lost response) with the same labels
    answers as the first one did, with the annotator's open lease.

    ``settle_seconds``: a submit that arrives sooner after the item was leased is
    refused (400, the item stays the annotator's): no person looked at it yet.
    The work page asks for it; programs on the API submit as fast as they like.
    """
    for attempt in range(LEASE_ATTEMPTS):
        now = timezone.now()
        try:
            with transaction.atomic():
                assignment = _locked_own(assignment_id, annotator, now)
                if not _still_leased(assignment, now):
                    break  # answered below
                _unseen_refuse(assignment, now, settle_seconds)
                return _store_and_lease(assignment, annotator, labels, active_seconds, now)
        except IntegrityError:
            time.sleep(RETRY_PAUSE * (attempt + 1))
    else:
        # The queue stayed busy through every attempt: keep the labels all the same.
        label_set = assignment_submit(
            assignment_id=assignment_id,
            annotator=annotator,
            labels=labels,
            active_seconds=active_seconds,
        )
        return Submitted(label_set, None, QueueError(str(BUSY), status=503, code="busy"))
    return _replay(assignment, annotator, labels)


def _unseen_refuse(assignment: Assignment, now, settle_seconds: float) -> None:
    if (now - assignment.leased_at).total_seconds() < settle_seconds:
        raise QueueError(str(TOO_SOON), status=400, code="too_soon")


def _store_and_lease(assignment, annotator, labels, active_seconds, now) -> Submitted:
    project = assignment.project
    categories = assignment.work_categories
    if categories is None:  # not read with the lock (SQLite)
        categories = work_categories(project)
    keys = [category.key for category in categories]
    label_set, qualification = _store(assignment, annotator, labels, active_seconds, keys, now)
    standing = Standing(
        rounds=assignment.project_rounds,
        qualification=qualification,
        policy=getattr(qualification.project, "quality", None) if qualification else None,
        stale=assignment.stale_leases,
    )
    try:
        lease = assignment_lease(project=project, annotator=annotator, standing=standing)
    except QueueError as exc:
        # The labels are stored; only the next item is refused (this label set
        # may have paused the annotator).
        return Submitted(label_set, None, exc, categories)
    return Submitted(label_set, lease, None, categories)


def _repeated(assignment: Assignment, labels, categories) -> LabelSet | None:
    """The stored label set when ``labels`` are what the submitted assignment stored."""
    label_set = LabelSet.objects.filter(assignment=assignment).first()
    if assignment.state != State.SUBMITTED or label_set is None:
        return None
    cleaned = assignment.item.labels_clean(labels, [c.key for c in categories])
    return label_set if cleaned == label_set.labels else None


def assignment_submit_repeat(*, assignment_id: int, annotator: User, labels) -> LabelSet | None:
    """For a submit refused because the assignment is no longer leased: the label set it
    stored when these labels repeat it (a retry after a lost response), else None."""
    assignment = (
        Assignment.objects.select_related("project", "item")
        .filter(pk=assignment_id, annotator=annotator)
        .first()
    )
    if assignment is None:
        return None
    return _repeated(assignment, labels, work_categories(assignment.project))


def _replay(assignment: Assignment, annotator: User, labels) -> Submitted:
    """The answer to a submit of an assignment that is no longer leased."""
    categories = work_categories(assignment.project)
    label_set = _repeated(assignment, labels, categories)
    if label_set is None:
        raise QueueError(_ended_message(assignment))
    try:
        lease = assignment_next(project=assignment.project, annotator=annotator)
    except QueueError as exc:
        return Submitted(label_set, None, exc, categories, replayed=True)
    return Submitted(label_set, lease, None, categories, replayed=True)
