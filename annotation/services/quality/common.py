"""Shared pieces of the quality services: the policy row, qualification rows, errors."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from annotation.models import Project, Qualification, QualificationRound, QualityPolicy
from core.errors import ServiceError


class QualityError(ServiceError, ValidationError):
    """A refusal with the HTTP status an API answers with (403, 404, 409, 429).

    Still a ValidationError, so forms and callers that catch those keep working.
    """

    def __init__(
        self, message: str, *, status: int = 409, code: str = "conflict", retry_after: int = 0
    ):
        ValidationError.__init__(self, message, code=code)
        self.status, self.errors = status, {}
        # Seconds until a 429's request may succeed: the API sends it as Retry-After.
        self.retry_after = retry_after


def policy_for(project: Project) -> QualityPolicy:
    policy, _ = QualityPolicy.objects.get_or_create(project=project)
    return policy


def qualification_for(*, project: Project, annotator) -> Qualification:
    found = Qualification.objects.filter(project=project, annotator=annotator).first()
    if found is not None:
        return found
    try:
        with transaction.atomic():
            return Qualification.objects.create(project=project, annotator=annotator)
    except IntegrityError:
        return Qualification.objects.get(project=project, annotator=annotator)


def round_locked(project: Project, position: int) -> QualificationRound | None:
    """The round at ``position``, locked so no researcher edits, moves or deletes it meanwhile."""
    # If a researcher's reorder commits while this waits for the lock, the row it waited
    # for has moved away and the locked read comes back empty; a second read sees the
    # new order (each statement reads the latest committed state).
    for _ in range(2):
        found = (
            QualificationRound.objects.select_for_update()
            .filter(project=project, position=position)
            .first()
        )
        if found is not None:
            return found
    return None
