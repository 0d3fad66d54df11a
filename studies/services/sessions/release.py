"""Letting a platform id start a study again, when its participant is stuck.

A participant who lost the browser they started in cannot resume (their platform
id alone proves nothing), so the researcher releases the id (of a session in progress or
timed out; never of one completed or withdrawn): the old session is
kept, marked abandoned, with whatever it recorded, and the next start with that
id begins a new session. Every release is written to the audit log.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from core.services.audit import audit_record
from studies.models import ParticipantSession, Study

Status = ParticipantSession.Status

# A completed session is the participant's data: releasing it would let the same
# person take the study twice. A withdrawal is the participant's decision, kept on record
# (the session's status is what the monitor, exports and exclusions read): releasing it
# would turn it into "abandoned". Declined and preview sessions hold no platform id.
RELEASABLE = (Status.IN_PROGRESS, Status.TIMED_OUT)


def session_release_problem(session: ParticipantSession) -> str | None:
    """Why this session's id cannot be released, or None when it can."""
    if session.is_preview or not session.external_id:
        return "Only sessions started with a platform id can be released."
    if session.status == Status.ABANDONED:
        return "This id was already released; its next start begins a new session."
    if session.status == Status.COMPLETED:
        return (
            "This participant completed the study. Releasing the id would let them take it twice."
        )
    if session.status == Status.WITHDRAWN:
        return (
            "This participant withdrew from the study. The withdrawal stays on record, so "
            "the id cannot be released."
        )
    if session.status not in RELEASABLE:
        return "This session cannot be released."
    return None


def session_release(
    *, study: Study, session_id: int, user, reason: str = "", now=None
) -> ParticipantSession:
    """Release a session's platform id so that it can start again; the session is abandoned."""
    reason = (reason or "").strip()
    if len(reason) > 2000:
        raise ValidationError({"reason": ["Keep the reason under 2000 characters."]})
    now = now or timezone.now()
    with transaction.atomic():
        session = (
            ParticipantSession.objects.select_for_update()
            .filter(study=study, pk=session_id)
            .first()
        )
        if session is None:
            raise ValidationError({"session": ["No such participant in this study."]})
        problem = session_release_problem(session)
        if problem:
            raise ValidationError({"session": [problem]})
        before = session.status
        session.status = Status.ABANDONED
        session.ended_at = session.ended_at or now
        session.save(update_fields=["status", "ended_at"])
        audit_record(
            actor=user,
            action="study.session_release",
            subject=f"studies.participantsession:{session.pk}",
            reason=reason,
            details={
                "study": study.slug,
                "external_id": session.external_id,
                "before": before,
                "answered": session.current_position,
            },
        )
    return session
