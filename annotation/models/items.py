"""Caption items, their reference labels (kept apart) and the imports that brought them."""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone

from annotation.labels import LabelProblem, clean_labels
from annotation.models.project import Project


class ImportBatch(models.Model):
    """One import of a caption file, accepted or rejected, with what it reported."""

    class State(models.TextChoices):
        DONE = "done", "Imported"
        REJECTED = "rejected", "Rejected"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="imports")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    filename = models.CharField(max_length=255)
    images_filename = models.CharField(max_length=255, blank=True)
    format = models.CharField(max_length=10)
    state = models.CharField(max_length=10, choices=State.choices)
    records = models.PositiveIntegerField(default=0)
    created_items = models.PositiveIntegerField(default=0)
    # [{"id": ..., "records": [indices]}]: identical repeats in the file, stored once.
    duplicates = models.JSONField(default=list, blank=True)
    # Ids already in the project from an earlier import: left as they were.
    existing = models.JSONField(default=list, blank=True)
    # [{"record": index, "id": ..., "field": ..., "reason": ...}] when rejected.
    problems = models.JSONField(default=list, blank=True)
    seconds = models.FloatField(default=0.0)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at"]
        verbose_name_plural = "import batches"

    def __str__(self) -> str:
        return f"{self.filename} ({self.state})"


class Item(models.Model):
    """A chart and a machine-written caption, split into the sentences annotators label."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="items")
    external_id = models.CharField(max_length=200, help_text="The source's id (CHOCOLATE `_id`).")
    sentences = models.JSONField(help_text="The caption as a list of sentences.")
    # A chart file in public media (from an uploaded zip or the demo), or a URL kept as given.
    image = models.ImageField(upload_to="annotation/charts/", blank=True)
    image_url = models.URLField(max_length=1000, blank=True)
    model = models.CharField("captioning model", max_length=60, blank=True)
    dataset = models.CharField("source dataset", max_length=60, blank=True)
    split = models.CharField(max_length=20, blank=True)
    position = models.PositiveIntegerField(default=0)
    import_batch = models.ForeignKey(
        ImportBatch, null=True, blank=True, on_delete=models.SET_NULL, related_name="items"
    )
    # Queue counters, only changed while the item's row is locked: `filled` counts
    # open leases and submitted label sets (the slots in use), `submitted` the latter.
    filled_count = models.PositiveSmallIntegerField(default=0)
    submitted_count = models.PositiveSmallIntegerField(default=0)
    # Adaptive overlap: whether the submitted label sets leave the item undecided by
    # the project's rule, set with `submitted_count` under the same row lock, so the
    # queue's one query can tell which items want another label set.
    disputed = models.BooleanField(default=False)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["position", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["project", "external_id"], name="item_external_id_per_project"
            )
        ]
        indexes = [
            models.Index(
                fields=["project", "-filled_count", "-submitted_count", "position", "id"],
                name="item_queue_order",
            )
        ]

    def __str__(self) -> str:
        return self.external_id

    @property
    def image_src(self) -> str:
        return self.image.url if self.image else self.image_url

    @property
    def caption(self) -> str:
        return " ".join(self.sentences)

    def labels_clean(self, labels, keys) -> list[list[str]]:
        """``labels`` checked against this caption and the project's category ``keys``.

        The form every draft, submit and gold answer is stored in; a problem is a
        ValidationError on ``labels`` that names the sentence.
        """
        try:
            return clean_labels(labels, sentences=len(self.sentences), keys=keys)
        except LabelProblem as exc:
            raise ValidationError({"labels": [str(exc)]}) from None


class ReferenceLabels(models.Model):
    """Labels that came with an import (CHOCOLATE's aggregated ones).

    A table of its own so that nothing loading items for annotators can pick
    them up by accident; only researcher selectors join it.
    """

    item = models.OneToOneField(Item, on_delete=models.CASCADE, related_name="reference")
    labels = models.JSONField(help_text="One list of category keys per sentence.")
    source = models.CharField(max_length=255, blank=True)

    class Meta:
        verbose_name_plural = "reference labels"

    def __str__(self) -> str:
        return f"reference labels of {self.item}"
