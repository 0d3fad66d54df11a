"""The monitor of a study: how far each session got, the balance of orders and the precision
reached so far (the monitor page and the API read the same rows)."""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from django.db.models import Count, Q
from django.utils import timezone

from studies import exclusion_rules
from studies.models import (
    ParticipantSession,
    Question,
    Response,
    Study,
)
from studies.selectors.results import session_facts
from studies.selectors.stopping import StudyPrecision, study_precision

Status = ParticipantSession.Status
FINAL = (Status.COMPLETED, Status.TIMED_OUT, Status.WITHDRAWN, Status.ABANDONED)


def format_seconds(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


@dataclass
class SessionRow:
    session: ParticipantSession
    duration_s: float | None
    median_chart_s: float | None
    reasons: list[str]
    fastest_trial_ms: int | None = None

    @property
    def excluded(self) -> bool:
        return bool(self.reasons)

    @property
    def duration_text(self) -> str:
        return format_seconds(self.duration_s)


@dataclass
class BalanceRow:
    code: str
    manipulated_first: int
    non_manipulated_first: int

    @property
    def difference(self) -> int:
        return abs(self.manipulated_first - self.non_manipulated_first)


@dataclass
class Monitor:
    counts: dict[str, int]
    test_counts: dict[str, int]
    balance: list[BalanceRow]
    median_duration_s: float | None
    attention_answered: int
    attention_failed: int
    participants_failing: int
    rows: list[SessionRow] = field(default_factory=list)
    # Each chart's interval over the participants the preview includes.
    precision: StudyPrecision | None = None

    @property
    def median_duration_text(self) -> str:
        return format_seconds(self.median_duration_s)

    @property
    def max_imbalance(self) -> int:
        return max((row.difference for row in self.balance), default=0)

    @property
    def attention_failure_rate(self) -> float | None:
        if not self.attention_answered:
            return None
        return self.attention_failed / self.attention_answered


def study_monitor(study: Study, *, now=None) -> Monitor:
    """Counts, order balance, durations and the exclusion preview for the monitoring page."""
    now = now or timezone.now()
    sessions = list(ParticipantSession.objects.filter(study=study).order_by("-created_at", "-id"))
    # The analysis's facts and rules, so the preview is what the results will use.
    facts = {f.id: f for f in session_facts(study, times=True)}
    counts = Counter()
    test_counts = Counter()
    rows: list[SessionRow] = []
    included_ids: list[int] = []
    durations = []
    first_manipulated: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for s in sessions:
        duration = None
        if s.consented_at and (s.completed_at or s.ended_at):
            duration = ((s.completed_at or s.ended_at) - s.consented_at).total_seconds()
        fact = facts.get(s.id)
        if fact is None:  # erased between the two reads
            continue
        reasons = [text for _code, text in exclusion_rules.rule_reasons(study, fact.rule_facts)]
        rows.append(
            SessionRow(s, duration, fact.median_chart_seconds, reasons, fact.fastest_trial_ms)
        )
        if s.is_test:
            test_counts["pilot" if s.is_pilot else "preview"] += 1
            continue
        counts[s.status] += 1
        if s.status == Status.DECLINED:
            continue
        counts["started"] += 1
        if s.status in FINAL:
            counts["excluded" if reasons else "included"] += 1
            if not reasons:
                included_ids.append(s.id)
        if s.status == Status.COMPLETED and duration is not None:
            durations.append(duration)
        seen = set()
        for item in s.order:
            if item.get("kind") == "chart" and item["pair"] not in seen:
                seen.add(item["pair"])
                first_manipulated[item["pair"]][0 if item["version"] == 2 else 1] += 1

    codes = dict(Question.objects.filter(study_pairs__study=study).values_list("id", "code"))
    balance = [
        BalanceRow(codes.get(qid, str(qid)), *first_manipulated.get(qid, [0, 0]))
        for qid in sorted(codes, key=lambda q: codes[q])
    ]
    attention = Response.objects.filter(
        session__study=study,
        session__is_pilot=False,
        session__is_preview=False,
        attention_check__isnull=False,
    ).aggregate(
        answered=Count("id"),
        failed=Count("id", filter=Q(correct=False)),
        failing=Count("session", filter=Q(correct=False), distinct=True),
    )
    for key in (
        "started", "in_progress", "completed", "timed_out", "withdrawn", "declined", "abandoned",
    ):  # fmt: skip
        counts.setdefault(key, 0)
    counts.setdefault("excluded", 0)
    counts.setdefault("included", 0)
    return Monitor(
        counts=dict(counts),
        test_counts={"pilot": test_counts["pilot"], "preview": test_counts["preview"]},
        balance=balance,
        median_duration_s=statistics.median(durations) if durations else None,
        attention_answered=attention["answered"],
        attention_failed=attention["failed"],
        participants_failing=attention["failing"],
        rows=rows,
        precision=study_precision(study, included_ids),
    )
