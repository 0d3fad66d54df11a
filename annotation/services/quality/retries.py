"""More attempts at a round: a researcher allows one to an annotator, or raises the limit.

Both re-open the round for annotators who used every attempt (their standing goes
from eliminated back to taking the rounds), and both are written to the audit log.
An annotator a researcher disqualified by hand after their last attempt stays out
when the limit rises: that was a person's decision, not the old limit's.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from annotation.models import Project, Qualification, QualityPolicy
from annotation.selectors.attempts import attempts_allowed, retry_at, round_attempts
from annotation.selectors.work import is_member
from annotation.services.quality.common import (
    QualityError,
    policy_for,
    qualification_for,
    round_locked,
)
from core.models import AuditEntry
from core.services.audit import audit_record

State = Qualification.State


def attempt_grant(
    *, project: Project, annotator, position: int, reason: str, actor
) -> Qualification:
    """Allow ``annotator`` one more attempt at round ``position`` (after a failed attempt)."""
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError({"reason": ["Give a reason; it is kept in the audit log."]})
    if not is_member(project=project, annotator=annotator):
        raise QualityError("This person is not an annotator of the project.", status=404,
                           code="not_found")  # fmt: skip
    policy = policy_for(project)
    with transaction.atomic():
        round_ = round_locked(project, position)  # rounds before standings, as attempt_start
        qualification_for(project=project, annotator=annotator)
        qualification = Qualification.objects.select_for_update().get(
            project=project, annotator=annotator
        )
        if round_ is None:
            raise QualityError("No such round.", status=404, code="not_found")
        _check_grant(qualification, round_, policy)
        _used, next_at = retry_at(qualification, round_, policy)
        if next_at is None:  # no attempt left: one more on top of the limit
            extra = dict(qualification.extra_attempts or {})
            extra[str(round_.pk)] = int(extra.get(str(round_.pk), 0)) + 1
            qualification.extra_attempts = extra
        before = qualification.state
        qualification.state = State.STARTED
        qualification.manual_reason = reason
        qualification.updated_at = timezone.now()
        qualification.save(update_fields=["extra_attempts", "state", "manual_reason", "updated_at"])
        audit_record(
            actor=actor, action="annotation.attempt_grant", subject=project.subject, reason=reason,
            details={"annotator": annotator.username, "round": position, "before": before,
                     "attempts_allowed": attempts_allowed(qualification, round_, policy)},
        )  # fmt: skip
    return qualification


def _check_grant(qualification: Qualification, round_, policy) -> None:
    name = qualification.annotator.username
    if qualification.state == State.QUALIFIED or round_.position <= qualification.rounds_passed:
        raise QualityError(f"{name} already passed round {round_.position}.", code="passed")
    if round_.position > qualification.rounds_passed + 1:
        raise QualityError(
            f"{name} has not reached round {round_.position}; rounds go in order.",
            code="out_of_order",
        )
    attempts = round_attempts(qualification, round_)
    if not attempts or attempts[-1].passed is not False:
        raise QualityError(
            f"{name} has not failed round {round_.position}, so there is no attempt to allow.",
            code="not_failed",
        )
    _used, next_at = retry_at(qualification, round_, policy, attempts=attempts)
    if next_at is not None and qualification.state != State.ELIMINATED:
        raise QualityError(
            f"{name} still has an attempt left at round {round_.position}.", code="attempt_left"
        )


def policy_update(*, project: Project, changes: dict, actor) -> tuple[QualityPolicy, list[str]]:
    """Save validated quality settings; a higher attempt limit re-opens rounds. Returns re-opened names."""
    policy_for(project)
    with transaction.atomic():
        policy = QualityPolicy.objects.select_for_update().get(project=project)
        before = {key: getattr(policy, key) for key in changes}
        for key, value in changes.items():
            setattr(policy, key, value)
        policy.save()
        changed = {k: [before[k], v] for k, v in changes.items() if before[k] != v}
        if changed:
            audit_record(actor=actor, action="annotation.quality_settings",
                         subject=project.subject, details={"changed": changed})  # fmt: skip
        reopened = []
        if changes.get("max_attempts", 0) > before.get("max_attempts", policy.max_attempts):
            reopened = reopen(project, policy, actor)
    return policy, reopened


def reopen(project: Project, policy, actor, *, only=None) -> list[str]:
    """Give eliminated annotators with attempts left under ``policy`` their round back.

    ``only``: a round whose own limit was raised; the others are left as they are.
    """
    rounds = {r.position: r for r in project.rounds.all() if only is None or r.pk == only.pk}
    reopened = []
    eliminated = (
        Qualification.objects.select_for_update()
        .filter(project=project, state=State.ELIMINATED)
        .select_related("annotator")
        .prefetch_related("attempts")
        .order_by("pk")
    )
    for qualification in eliminated:
        round_ = rounds.get(qualification.rounds_passed + 1)
        attempts = round_attempts(qualification, round_) if round_ else []
        if not attempts or attempts[-1].passed is not False:
            continue
        if retry_at(qualification, round_, policy, attempts=attempts)[1] is None:
            continue
        if _disqualified_by_hand(project, qualification, since=attempts[-1].finished_at):
            continue
        qualification.state = State.STARTED
        qualification.updated_at = timezone.now()
        qualification.save(update_fields=["state", "updated_at"])
        name = qualification.annotator.username
        audit_record(
            actor=actor, action="annotation.round_reopen", subject=project.subject,
            reason=f"The attempt limit of round {round_.position} was raised.",
            details={"annotator": name, "round": round_.position,
                     "attempts_allowed": attempts_allowed(qualification, round_, policy)},
        )  # fmt: skip
        reopened.append(name)
    return reopened


def _disqualified_by_hand(project: Project, qualification: Qualification, *, since) -> bool:
    return AuditEntry.objects.filter(
        subject=project.subject,
        action="annotation.annotator_disqualify",
        details__annotator=qualification.annotator.username,
        created_at__gte=since,
    ).exists()
