"""The researcher's aggregation choices stored on the project."""

from __future__ import annotations

from django.core.exceptions import ValidationError

from analysis.captions import TIE_RULES
from annotation.models import Project
from core.models import User
from core.services.audit import audit_record


def project_tie_rule_set(*, project: Project, tie_rule: str, actor: User | None = None) -> Project:
    """Change how a majority vote that ties is decided; reports recompute as they go stale."""
    if tie_rule not in TIE_RULES:
        raise ValidationError(
            {"tie_rule": [f"Choose one of {', '.join(TIE_RULES)} (a tie is no error / an error)."]}
        )
    if project.tie_rule == tie_rule:
        return project
    previous = project.tie_rule
    project.tie_rule = tie_rule
    project.save(update_fields=["tie_rule"])
    audit_record(
        actor=actor,
        action="annotation.tie_rule",
        subject=project.subject,
        details={"from": previous, "to": tie_rule},
    )
    return project
