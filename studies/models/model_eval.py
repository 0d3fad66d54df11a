"""Model answers to a study's FACT and MIND questions, imported from a model runner's file."""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from studies.models.library import Chart
from studies.models.study import Study

__all__ = ["ModelAnswer", "ModelRun"]


class ModelRun(models.Model):
    """One model's last import into a study; a re-import replaces its answers."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="model_runs")
    model = models.CharField(max_length=200)
    source_name = models.CharField(max_length=255, blank=True)
    imported_at = models.DateTimeField(default=timezone.now)
    imported_by = models.ForeignKey(
        "core.User", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["study_id", "model"]
        constraints = [
            models.UniqueConstraint(fields=["study", "model"], name="unique_model_run_per_study")
        ]

    def __str__(self) -> str:
        return self.model


class ModelAnswer(models.Model):
    run = models.ForeignKey(ModelRun, on_delete=models.CASCADE, related_name="answers")
    # Denormalised from the run so the database enforces one answer per study, model and chart.
    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="+")
    model = models.CharField(max_length=200)
    chart = models.ForeignKey(Chart, on_delete=models.PROTECT, related_name="model_answers")
    row = models.PositiveIntegerField(default=0)
    fact_answer = models.TextField(blank=True)
    fact_correct = models.BooleanField(null=True)
    mind_answer = models.TextField(blank=True)
    mind_prediction = models.FloatField(null=True, blank=True)
    mind_justification = models.TextField(blank=True)
    problems = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["run_id", "chart__chart_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["study", "model", "chart"], name="unique_model_answer_per_chart"
            )
        ]

    def __str__(self) -> str:
        return f"{self.model}: {self.chart_id}"
