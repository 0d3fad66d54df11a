"""What `run_models` has stored so far, per model: shown on the Models page so a run can be followed."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Count, Max, Q

from studies.models import Chart, ModelReply, Study

FAILURES_SHOWN = 5


@dataclass
class ReplySummary:
    model: str
    endpoint: str
    done: int
    failed: int
    expected: int
    last_at: object
    failures: list[ModelReply] = field(default_factory=list)

    @property
    def missing(self) -> int:
        return max(self.expected - self.done - self.failed, 0)


def reply_summaries(study: Study) -> list[ReplySummary]:
    """One row per model run against an endpoint: questions answered, failed, still to ask."""
    Status = ModelReply.Status
    rows = (
        ModelReply.objects.filter(study=study)
        .values("model")
        .annotate(
            done=Count("pk", filter=Q(status=Status.DONE)),
            failed=Count("pk", filter=Q(status=Status.FAILED)),
            last_at=Max("updated_at"),
            endpoint=Max("endpoint"),
        )
        .order_by("model")
    )
    # Every chart has a FACT and a MIND question.
    expected = 2 * Chart.objects.filter(question__study_pairs__study=study).count()
    failures: dict[str, list[ModelReply]] = {}
    for reply in (
        ModelReply.objects.filter(study=study, status=Status.FAILED)
        .select_related("chart")
        .order_by("model", "-updated_at")
    ):
        shown = failures.setdefault(reply.model, [])
        if len(shown) < FAILURES_SHOWN:
            shown.append(reply)
    return [
        ReplySummary(
            row["model"],
            row["endpoint"] or "",
            row["done"],
            row["failed"],
            expected,
            row["last_at"],
            failures.get(row["model"], []),
        )  # fmt: skip
        for row in rows
    ]
