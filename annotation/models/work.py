"""The work queue: who holds which item (assignments) and what they submitted (label sets)."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from annotation.models.items import Item
from annotation.models.project import Project


class Assignment(models.Model):
    """An item given to an annotator: an open lease, then submitted, skipped or ended.

    The database itself keeps the queue's promises, whatever the code above it does:
    one row per (item, annotator), so nobody labels an item twice; each item has
    slots 0..k-1 and a slot is held by at most one open or submitted assignment, so
    no item gets more than k; an annotator holds at most one open lease per project.
    """

    class State(models.TextChoices):
        LEASED = "leased", "In progress"
        SUBMITTED = "submitted", "Submitted"
        SKIPPED = "skipped", "Skipped"
        EXPIRED = "expired", "Lease expired"
        RELEASED = "released", "Released"

    # States that hold one of the item's k slots.
    HOLDING = (State.LEASED, State.SUBMITTED)
    # States after which the annotator never gets the item again.
    FINAL = (State.LEASED, State.SUBMITTED, State.SKIPPED)

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="assignments")
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="assignments")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="assignments"
    )
    state = models.CharField(max_length=10, choices=State.choices, default=State.LEASED)
    slot = models.PositiveSmallIntegerField()
    leased_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    draft = models.JSONField(null=True, blank=True)
    draft_saved_at = models.DateTimeField(null=True, blank=True)
    active_seconds = models.FloatField(default=0.0)
    skip_reason = models.TextField(blank=True)

    class Meta:
        ordering = ["-leased_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["item", "annotator"], name="one_assignment_per_annotator"
            ),
            models.UniqueConstraint(
                fields=["item", "slot"],
                condition=Q(state__in=["leased", "submitted"]),
                name="one_holder_per_item_slot",
            ),
            models.UniqueConstraint(
                fields=["project", "annotator"],
                condition=Q(state="leased"),
                name="one_open_lease_per_annotator",
            ),
        ]
        indexes = [
            models.Index(
                fields=["project", "expires_at"],
                condition=Q(state="leased"),
                name="assignment_open_leases",
            ),
            models.Index(fields=["project", "annotator", "state"], name="assignment_by_annotator"),
        ]

    def __str__(self) -> str:
        return f"{self.item} -> {self.annotator} ({self.state})"

    def is_expired(self, now=None) -> bool:
        return self.state == self.State.LEASED and self.expires_at <= (now or timezone.now())


class LabelSet(models.Model):
    """One annotator's submitted labels for one item: a list of category keys per sentence."""

    assignment = models.OneToOneField(
        Assignment, on_delete=models.CASCADE, related_name="label_set"
    )
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="label_sets")
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="label_sets")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="label_sets"
    )
    labels = models.JSONField()
    active_seconds = models.FloatField(default=0.0)
    submitted_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["submitted_at"]
        indexes = [models.Index(fields=["project", "item"], name="labelset_by_item")]

    def __str__(self) -> str:
        return f"labels of {self.annotator} on {self.item}"
