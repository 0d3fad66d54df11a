"""Who is included in a study's analysis: the study's rules, then the researcher's overrides."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from core.services.audit import audit_record
from studies import exclusion_rules
from studies.models import ExclusionOverride, ParticipantSession, Study, StudyResults
from studies.selectors.results import SessionFacts, session_facts

Status = ParticipantSession.Status

# Reason codes, in the order the funnel lists them; the first that applies is the
# session's main reason.
REASONS = {
    "test": "Pilot or preview session",
    "withdrawn": "Withdrew",
    "timed_out": "Timed out",
    "in_progress": "Still in progress",
    "incomplete": "Did not answer every trial",
    "attention": "Failed attention checks",
    "abandoned": "Abandoned (id released to start again)",
    "too_fast": "Too fast (median time per chart)",
    "trial_too_fast": "Answered a trial too fast",
    "override": "Excluded by the researcher",
}


@dataclass(slots=True)
class Decision:
    facts: SessionFacts
    reasons: list[tuple[str, str]]  # (code, text) from the rules
    included: bool
    overridden: bool = False

    @property
    def main_reason(self) -> str | None:
        if self.included:
            return None
        if self.overridden:
            return "override"
        return self.reasons[0][0] if self.reasons else None

    @property
    def reason_text(self) -> str:
        texts = [text for _code, text in self.reasons]
        if self.overridden:
            verb = "included" if self.included else "excluded"
            texts.append(f"{verb} by the researcher: {self.facts.override_reason}")
        return "; ".join(texts)


@dataclass
class Exclusion:
    decisions: list[Decision] = field(default_factory=list)
    declined: int = 0
    test_sessions: int = 0

    @property
    def took_part(self) -> list[Decision]:
        return [d for d in self.decisions if not d.facts.is_pilot and not d.facts.is_preview]

    @property
    def included(self) -> list[Decision]:
        return [d for d in self.took_part if d.included]

    @property
    def included_ids(self) -> list[int]:
        return [d.facts.id for d in self.included]

    @property
    def excluded(self) -> list[Decision]:
        return [d for d in self.took_part if not d.included]

    def funnel(self) -> dict:
        by_reason = Counter(d.main_reason for d in self.excluded)
        return {
            "took_part": len(self.took_part),
            "excluded": len(self.excluded),
            "included": len(self.included),
            "declined": self.declined,
            "test_sessions": self.test_sessions,
            "by_reason": [
                {"code": code, "label": REASONS[code], "n": by_reason[code]}
                for code in REASONS
                if by_reason.get(code)
            ],
        }


def study_exclusion(study: Study) -> Exclusion:
    """Apply the rules and overrides to every session of the study."""
    result = Exclusion()
    for facts in session_facts(study):
        if facts.status == Status.DECLINED:
            result.declined += 1
            continue
        if facts.is_test:
            result.test_sessions += 1
        reasons = exclusion_rules.rule_reasons(study, facts.rule_facts)
        included = not reasons
        overridden = False
        # A test session never counts, and an unfinished one has no data to analyse yet;
        # an include cannot bring back a withdrawn or abandoned one (NEVER_INCLUDED).
        if (
            facts.override
            and not facts.is_test
            and facts.status != Status.IN_PROGRESS
            and not (
                facts.override == ExclusionOverride.Decision.INCLUDE
                and facts.status in NEVER_INCLUDED
            )
        ):
            overridden = (facts.override == ExclusionOverride.Decision.INCLUDE) != included
            included = facts.override == ExclusionOverride.Decision.INCLUDE
        result.decisions.append(Decision(facts, reasons, included, overridden))
    return result


# Sessions no override includes. A withdrawal takes the person out of the analysis (their
# answers are often deleted, and the consent and the dataset's documentation say so); an
# abandoned session's id was released so its owner could start again, and the new
# session is the one that counts: including both would count one person twice.
NEVER_INCLUDED = {
    Status.WITHDRAWN: "A participant who withdrew is never included: they left the study, and "
    "the results and the dataset's documentation say withdrawn sessions are not analysed.",
    Status.ABANDONED: "This session was abandoned when its id was released to start again; "
    "the participant's new session is the one that counts, so including this one would "
    "count them twice.",
}


def results_inputs_changed(study: Study) -> None:
    """Say that the study's computed results no longer match its decisions or rules."""
    StudyResults.objects.filter(study=study).update(inputs_changed_at=timezone.now())


def exclusion_override_set(
    *, study: Study, session_id: int, decision: str, reason: str, user
) -> ExclusionOverride | None:
    """Include or exclude one participant against the rules, or go back to the rules ("auto").

    The reason is required and every change is written to the audit log.
    """
    reason = (reason or "").strip()
    if decision not in ("include", "exclude", "auto"):
        raise ValidationError({"decision": ["Choose include, exclude or auto (follow the rules)."]})
    if not reason:
        raise ValidationError({"reason": ["Give a reason for the decision; it is logged."]})
    if len(reason) > 2000:
        raise ValidationError({"reason": ["Keep the reason under 2000 characters."]})
    session = ParticipantSession.objects.filter(study=study, pk=session_id).first()
    if session is None:
        raise ValidationError({"session": ["No such participant in this study."]})
    if session.is_test:
        raise ValidationError({"session": ["Pilot and preview sessions never count."]})
    if session.status in (Status.DECLINED, Status.IN_PROGRESS):
        raise ValidationError(
            {
                "session": [
                    "Only finished sessions (completed, timed out, withdrawn) can be decided."
                ]
            }
        )
    if decision == "include" and session.status in NEVER_INCLUDED:
        raise ValidationError({"decision": [NEVER_INCLUDED[session.status]]})
    with transaction.atomic():
        previous = ExclusionOverride.objects.filter(session=session).first()
        before = previous.decision if previous else "auto"
        if decision == "auto":
            if previous:
                previous.delete()
            override = None
        else:
            override, _ = ExclusionOverride.objects.update_or_create(
                session=session,
                defaults={
                    "decision": decision,
                    "reason": reason,
                    "decided_by": user,
                    "decided_at": timezone.now(),
                },
            )
        results_inputs_changed(study)
        audit_record(
            actor=user,
            action="study.exclusion_override",
            subject=f"studies.participantsession:{session.pk}",
            reason=reason,
            details={"study": study.slug, "before": before, "after": decision},
        )
    return override
