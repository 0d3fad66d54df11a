"""The latest agreement and dataset report of a project, as a stored snapshot.

Computing a report reads every counted label, so pages and the API show the
snapshot a background job stored, with the fingerprint of what it was computed
from; a page compares it with the current fingerprint to tell a stale report.
"""

from django.db import models
from django.utils import timezone

from annotation.models.project import Project


class ProjectReport(models.Model):
    class Labels(models.TextChoices):
        ANNOTATORS = "annotators", "Annotators' labels, aggregated"
        REFERENCE = "reference", "Reference labels"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="reports")
    labels = models.CharField(max_length=12, choices=Labels.choices)
    # Off: only labels that count (qualified, not blocked, non-control); on: every label set.
    include_excluded = models.BooleanField(default=False)
    job = models.ForeignKey(
        "core.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    fingerprint = models.CharField(max_length=200)
    data = models.JSONField(default=dict)
    figure_svg = models.TextField(blank=True)
    # When the computation began: a slower, older run must not replace a newer snapshot.
    started_at = models.DateTimeField(default=timezone.now)
    computed_at = models.DateTimeField(default=timezone.now)
    seconds = models.FloatField(default=0.0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["project", "labels", "include_excluded"], name="one_report_per_variant"
            )
        ]

    def __str__(self) -> str:
        return f"{self.get_labels_display()} report of {self.project}"
