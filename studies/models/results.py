"""Study results: exclusion overrides, the computed results snapshot and the export salt."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import ClassVar

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext, ngettext

from studies.models.sessions import ParticipantSession
from studies.models.study import Study

__all__ = ["ExclusionOverride", "StaleReason", "StudyResults"]


def new_salt() -> str:
    return secrets.token_hex(16)


class ExclusionOverride(models.Model):
    """A researcher's decision to include or exclude one participant against the rules."""

    class Decision(models.TextChoices):
        INCLUDE = "include", "Include"
        EXCLUDE = "exclude", "Exclude"

    session = models.OneToOneField(
        ParticipantSession, on_delete=models.CASCADE, related_name="exclusion_override"
    )
    decision = models.CharField(max_length=10, choices=Decision.choices)
    reason = models.TextField()
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["session_id"]

    def __str__(self) -> str:
        return f"{self.session_id}: {self.decision}"


class StudyResults(models.Model):
    """The last computed results of a study, and what the recompute machinery needs."""

    study = models.OneToOneField(Study, on_delete=models.CASCADE, related_name="results")
    data = models.JSONField(default=dict, blank=True)
    computed_at = models.DateTimeField(null=True, blank=True)
    # Responses in the study when the snapshot was computed: the page compares it
    # with the count now to say the numbers are out of date.
    response_count = models.PositiveIntegerField(default=0)
    # When a participant was included or excluded by hand, or the exclusion rules changed:
    # after the snapshot, its numbers are out of date although no response came in.
    inputs_changed_at = models.DateTimeField(null=True, blank=True)
    job = models.ForeignKey(
        "core.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # The queued recompute, so new responses schedule at most one per study.
    pending_job = models.ForeignKey(
        "core.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Pseudonymous participant ids in exports are a hash salted per study, so they
    # cannot be matched across studies or recomputed from a platform id alone.
    salt = models.CharField(max_length=64, default=new_salt)

    class Meta:
        verbose_name_plural = "study results"

    def __str__(self) -> str:
        return f"results of {self.study_id}"

    def stale_reason(self, response_count: int) -> StaleReason | None:
        """Why the computed numbers are out of date, or None while they are not: responses
        came in or left since (said first: a recompute is what brings them in), or a
        decision or rule they depend on changed after they were computed. The page and the
        API both say this."""
        if self.computed_at is None:
            return None
        if self.response_count != response_count:
            return StaleReason(
                StaleReason.RESPONSES_CHANGED,
                ngettext(
                    "There is %(count)d response now: recompute to include the new ones.",
                    "There are %(count)d responses now: recompute to include the new ones.",
                    response_count,
                )
                % {"count": response_count},
            )
        if self.inputs_changed_at is not None and self.inputs_changed_at > self.computed_at:
            return StaleReason(
                StaleReason.INPUTS_CHANGED,
                gettext(
                    "Inclusion decisions or exclusion rules changed since: recompute to apply them."
                ),
            )
        return None

    def is_stale(self, response_count: int) -> bool:
        """Whether the computed numbers are out of date (see :meth:`stale_reason`)."""
        return self.stale_reason(response_count) is not None


@dataclass(frozen=True)
class StaleReason:
    """Why results are out of date: a code for programs and a sentence for people."""

    RESPONSES_CHANGED: ClassVar[str] = "responses_changed"
    INPUTS_CHANGED: ClassVar[str] = "inputs_changed"
    CODES: ClassVar[tuple[str, ...]] = (RESPONSES_CHANGED, INPUTS_CHANGED)

    code: str
    text: str
