"""The hot annotator responses (the next item, submit with next) built as plain dicts.

Leasing and submitting are the requests an annotator makes for every item, and
building these bodies through nested DRF serializers cost about a tenth of the
request's CPU (field objects made and bound on every call). The shapes stay
documented by WorkAssignmentSerializer and SubmittedNextSerializer, which the
schema uses; test_work_bodies.py asserts both give the same output, for
controls and ordinary items alike.
"""

from __future__ import annotations

from rest_framework import serializers

from annotation.api.serializers import image_src

# DRF's own datetime rendering (settings, time zone), so the format cannot drift.
_DATETIME = serializers.DateTimeField()


def _when(value):
    return None if value is None else _DATETIME.to_representation(value)


def category_bodies(categories) -> list[dict]:
    return [
        {
            "key": c.key,
            "name": c.name,
            "definition": c.definition,
            "example": c.example,
            "shortcut": c.shortcut,
        }
        for c in categories
    ]


def work_assignment_body(assignment, categories, request) -> dict:
    """What WorkAssignmentSerializer gives for ``assignment``."""
    item = assignment.item
    return {
        "id": assignment.pk,
        "project": str(assignment.project.slug),
        "state": str(assignment.state),
        "leased_at": _when(assignment.leased_at),
        "expires_at": _when(assignment.expires_at),
        "item": {
            "sentences": [str(sentence) for sentence in item.sentences],
            "image": image_src(item, request),
        },
        "categories": category_bodies(categories),
        "draft": assignment.draft,
        "active_seconds": float(assignment.active_seconds),
    }


def submitted_next_body(submitted, request) -> dict:
    """What SubmittedNextSerializer gives for ``submitted``."""
    label_set, refusal = submitted.label_set, submitted.refusal
    lease = submitted.next
    return {
        "id": label_set.pk,
        "labels": label_set.labels,
        "active_seconds": float(label_set.active_seconds),
        "submitted_at": _when(label_set.submitted_at),
        "next": None
        if lease is None
        else work_assignment_body(lease, submitted.categories, request),
        "next_refused": None
        if refusal is None
        else {"status": refusal.status, "code": str(refusal.code), "detail": str(refusal.message)},
    }
