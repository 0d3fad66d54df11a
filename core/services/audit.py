from __future__ import annotations

from core.models import AuditEntry, User


def audit_record(
    *, actor: User | None, action: str, subject: str, reason: str = "", details=None
) -> AuditEntry:
    return AuditEntry.objects.create(
        actor=actor, action=action, subject=subject, reason=reason, details=details or {}
    )
