"""Helpers for the report and export tests: label sets written straight to the database."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from annotation.models import Assignment, Item, LabelSet


def submit(project, item: Item, annotator, labels, *, seconds: float = 42.0) -> LabelSet:
    """A submitted label set of ``annotator`` on ``item`` (the queue's rules are tested elsewhere)."""
    now = timezone.now()
    slot = Assignment.objects.filter(item=item).count()
    assignment = Assignment.objects.create(
        project=project,
        item=item,
        annotator=annotator,
        slot=slot,
        state=Assignment.State.SUBMITTED,
        leased_at=now - timedelta(seconds=seconds + 5),
        expires_at=now + timedelta(minutes=30),
        finished_at=now,
        active_seconds=seconds,
    )
    Item.objects.filter(pk=item.pk).update(
        submitted_count=item.submitted_count + 1, filled_count=item.filled_count + 1
    )
    item.refresh_from_db()
    return LabelSet.objects.create(
        assignment=assignment,
        project=project,
        item=item,
        annotator=annotator,
        labels=labels,
        active_seconds=seconds,
        submitted_at=now,
    )
