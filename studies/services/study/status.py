"""The study's status: draft -> pilot -> live -> paused -> closed, with checks on the way."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q

from core.models import User
from core.services.audit import audit_record
from studies.models import ParticipantSession, Study
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


def study_status_change(*, study: Study, status: str, actor: User | None) -> Study:
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
    previous = study.status
    study.status = status
    study.save(update_fields=["status", "updated_at"])
    audit_record(
        actor=actor,
        action="study.status",
        subject=f"study:{study.pk}",
        details={"from": previous, "to": status},
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
        subject=f"study:{study.pk}",
        details={"sessions": count},
    )
    return count
