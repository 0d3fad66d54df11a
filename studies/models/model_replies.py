"""Raw replies from a model endpoint, stored one by one as `run_models` receives them."""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from studies.models.library import Chart
from studies.models.study import Study

__all__ = ["ModelReply"]


class ModelReply(models.Model):
    """A model's reply to one question (FACT or MIND) about one chart of a study.

    Stored the moment it arrives, so an interrupted run resumes where it
    stopped; ``request_hash`` identifies the exact request (model, prompt,
    image, parameters), so a reply to an older prompt or image is asked again.
    The API key is never part of the request body and is never stored.
    """

    class QuestionKind(models.TextChoices):
        FACT = "fact", "FACT"
        MIND = "mind", "MIND"

    class Status(models.TextChoices):
        DONE = "done", "Done"
        # The endpoint refused this request or sent no usable answer; a re-run asks again.
        FAILED = "failed", "Failed"

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="model_replies")
    model = models.CharField(max_length=200)
    chart = models.ForeignKey(Chart, on_delete=models.PROTECT, related_name="model_replies")
    question = models.CharField(max_length=10, choices=QuestionKind.choices)
    # Scheme, host and path only: no user info or query string, which may hold credentials.
    endpoint = models.CharField(max_length=300, blank=True)
    request_hash = models.CharField(max_length=64)
    prompt = models.TextField(blank=True)
    status = models.CharField(max_length=10, choices=Status.choices)
    reply_text = models.TextField(blank=True)
    raw_reply = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    attempts = models.PositiveIntegerField(default=0)
    elapsed_ms = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["study_id", "model", "chart__chart_id", "question"]
        constraints = [
            models.UniqueConstraint(
                fields=["study", "model", "chart", "question"],
                name="unique_model_reply_per_question",
            )
        ]

    def __str__(self) -> str:
        return f"{self.model}: {self.chart_id} {self.question}"
