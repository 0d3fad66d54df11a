"""A researcher's decisions about an annotator: qualify, disqualify, resume, block, (re-)include.

Every decision needs a reason and is written to the audit log.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from annotation.models import Project, Qualification
from annotation.selectors.work import is_member
from annotation.services.quality.common import QualityError, qualification_for
from core.services.audit import audit_record

State, Work = Qualification.State, Qualification.Work

ACTIONS = ("qualify", "disqualify", "resume", "block", "include", "exclude")


def _apply(qualification: Qualification, action: str) -> None:
    if action == "qualify":
        qualification.state = State.QUALIFIED
        qualification.rounds_passed = qualification.project.rounds.count()
    elif action == "disqualify":
        qualification.state = State.ELIMINATED
    elif action == "resume":
        if qualification.work_state == Work.ACTIVE:
            raise QualityError("This annotator is not paused or blocked.", code="not_paused")
        qualification.work_state = Work.ACTIVE
        qualification.paused_at = None
        # A fresh start: without it the old controls would pause them again at once.
        qualification.controls_since = timezone.now()
        qualification.controls_done = 0
        qualification.control_score_sum = 0.0
    elif action == "block":
        qualification.work_state = Work.BLOCKED
        qualification.labels_included = False
    elif action == "include":
        qualification.labels_included = True
    elif action == "exclude":
        qualification.labels_included = False


def annotator_decide(
    *, project: Project, annotator, action: str, reason: str, actor
) -> Qualification:
    """Apply a researcher's ``action`` to ``annotator`` in ``project`` and log it."""
    reason = (reason or "").strip()
    if action not in ACTIONS:
        raise ValidationError({"action": [f"Use one of: {', '.join(ACTIONS)}."]})
    if not reason:
        raise ValidationError({"reason": ["Give a reason; it is kept in the audit log."]})
    if not is_member(project=project, annotator=annotator):
        raise QualityError("This person is not an annotator of the project.", status=404,
                           code="not_found")  # fmt: skip
    with transaction.atomic():
        qualification_for(project=project, annotator=annotator)
        qualification = Qualification.objects.select_for_update().get(
            project=project, annotator=annotator
        )
        before = {"state": qualification.state, "work_state": qualification.work_state,
                  "labels_included": qualification.labels_included}  # fmt: skip
        _apply(qualification, action)
        qualification.manual_reason = reason
        qualification.updated_at = timezone.now()
        qualification.save()
        audit_record(
            actor=actor,
            action=f"annotation.annotator_{action}",
            subject=project.subject,
            reason=reason,
            details={"annotator": annotator.username, "before": before},
        )
    return qualification
