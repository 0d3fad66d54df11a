"""The study's status: draft -> pilot -> live -> paused -> closed, with checks on the way."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q

from core.models import User
from core.services.audit import audit_record
from studies.models import ParticipantSession, Study
from studies.selectors.readiness import ReadinessItem, study_warnings
from studies.selectors.study import study_readiness

S = Study.Status

TRANSITIONS: dict[str, tuple[str, ...]] = {
    S.DRAFT: (S.PILOT, S.LIVE),
    S.PILOT: (S.DRAFT, S.LIVE, S.CLOSED),
    S.LIVE: (S.PAUSED, S.CLOSED),
    S.PAUSED: (S.LIVE, S.CLOSED),
    S.CLOSED: (),
}


def allowed_transitions(study: Study) -> tuple[str, ...]:
    return TRANSITIONS[study.status]


class WarningsNotConfirmed(ValidationError):
    """The study has warnings the researcher has not confirmed; nothing changed."""

    def __init__(self, warnings: list[ReadinessItem]):
        super().__init__({"confirm_warnings": [w.message for w in warnings]})
        self.warnings = warnings


def publishing_warnings(study: Study, status: str) -> list[ReadinessItem]:
    """The warnings to confirm before this change: starting a pilot or going live, not resuming."""
    if status in (S.PILOT, S.LIVE) and study.status in (S.DRAFT, S.PILOT):
        return study_warnings(study)
    return []


def study_status_change(
    *, study: Study, status: str, actor: User | None, confirm_warnings: bool = False
) -> Study:
    if status not in S.values:
        raise ValidationError({"status": f"Unknown status {status!r}."})
    if status == study.status:
        return study
    if status not in TRANSITIONS[study.status]:
        raise ValidationError(
            {
                "status": f"A {study.get_status_display().lower()} study cannot become {S(status).label.lower()}."
            }
        )
    if status in (S.PILOT, S.LIVE):
        problems = study_readiness(study)
        if problems:
            raise ValidationError({"status": problems})
    warnings = publishing_warnings(study, status)
    if warnings and not confirm_warnings:
        raise WarningsNotConfirmed(warnings)
    previous = study.status
    study.status = status
    study.save(update_fields=["status", "updated_at"])
    audit_record(
        actor=actor,
        action="study.status",
        subject=study.subject,
        details={"from": previous, "to": status, "warnings": [w.code for w in warnings]},
    )
    return study


@transaction.atomic
def study_test_sessions_clear(*, study: Study, actor: User | None) -> int:
    """Delete pilot and preview sessions (and their answers), e.g. before changing the design."""
    sessions = ParticipantSession.objects.filter(study=study).filter(
        Q(is_pilot=True) | Q(is_preview=True)
    )
    count = sessions.count()
    sessions.delete()
    audit_record(
        actor=actor,
        action="study.clear_test_sessions",
        subject=study.subject,
        details={"sessions": count},
    )
    return count
