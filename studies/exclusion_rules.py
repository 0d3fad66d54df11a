"""The study's exclusion rules, applied to the facts of one session.

One function for the monitoring page's preview and the analysis, so that what
the researcher sees while the study runs is what the results will use. Plain
Python: the callers gather the facts (a few aggregate queries) and pass them in.
"""

from __future__ import annotations

from dataclasses import dataclass

# ParticipantSession.Status values, spelled out to keep this module free of Django.
IN_PROGRESS = "in_progress"
COMPLETED = "completed"
TIMED_OUT = "timed_out"
WITHDRAWN = "withdrawn"
DECLINED = "declined"
ABANDONED = "abandoned"


@dataclass(frozen=True)
class RuleFacts:
    """What the rules look at for one session."""

    status: str
    is_test: bool = False
    attention_failures: int = 0
    answered: int = 0
    trial_count: int = 0
    median_chart_seconds: float | None = None
    # The shortest time on a trial, by the server's clock (shown to answered), so a
    # client can report its way neither in nor out.
    fastest_trial_ms: int | None = None


def rule_reasons(study, facts: RuleFacts) -> list[tuple[str, str]]:
    """(code, text) for every rule of ``study`` that excludes the session; empty means included.

    ``study`` needs ``exclude_incomplete``, ``max_attention_failures``,
    ``min_seconds_per_trial`` and ``min_trial_ms``.
    """
    if facts.status == DECLINED:
        return [("declined", "declined consent")]
    reasons = []
    if facts.is_test:
        reasons.append(("test", "pilot or preview session"))
    status_reason = {
        WITHDRAWN: ("withdrawn", "withdrew"),
        TIMED_OUT: ("timed_out", "timed out"),
        IN_PROGRESS: ("in_progress", "still in progress"),
        ABANDONED: ("abandoned", "abandoned (id released)"),
    }.get(facts.status)
    if status_reason:
        reasons.append(status_reason)
    if (
        study.exclude_incomplete
        and facts.answered < facts.trial_count
        and facts.status == COMPLETED
    ):
        reasons.append(("incomplete", f"answered {facts.answered} of {facts.trial_count} trials"))
    if facts.attention_failures > study.max_attention_failures:
        plural = "s" if facts.attention_failures != 1 else ""
        reasons.append(
            (
                "attention",
                f"failed {facts.attention_failures} attention check{plural} "
                f"(allowed {study.max_attention_failures})",
            )
        )
    if (
        study.min_seconds_per_trial > 0
        and facts.median_chart_seconds is not None
        and facts.median_chart_seconds < study.min_seconds_per_trial
    ):
        reasons.append(
            (
                "too_fast",
                f"median {facts.median_chart_seconds:.1f} s per chart "
                f"(minimum {study.min_seconds_per_trial:g} s)",
            )
        )
    if (
        study.min_trial_ms > 0
        and facts.fastest_trial_ms is not None
        and facts.fastest_trial_ms < study.min_trial_ms
    ):
        reasons.append(
            (
                "trial_too_fast",
                f"answered a trial in {facts.fastest_trial_ms} ms "
                f"(minimum {study.min_trial_ms} ms)",
            )
        )
    return reasons
