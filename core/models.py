"""Accounts, roles, API tokens and background jobs shared by every app."""

from __future__ import annotations

import hashlib
import secrets

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core.datasets.licenses import DEFAULT_LICENSE, LICENSE_CHOICES
from core.storage import private_storage


def dataset_license_field() -> models.CharField:
    """The license a study's or project's exported dataset is published under.

    One definition for both apps' models, so the choices and help stay the same.
    """
    return models.CharField(
        max_length=20,
        choices=LICENSE_CHOICES,
        default=DEFAULT_LICENSE,
        help_text="The license the exported dataset is published under.",
    )


def dataset_citation_field() -> models.TextField:
    """How to cite a study's or project's exported dataset."""
    return models.TextField(
        blank=True,
        help_text="How to cite the dataset (BibTeX or plain text); goes into the dataset card "
        "and metadata.",
    )


class User(AbstractUser):
    """A signed-in person. Participants never get one: they hold a session token."""

    class Role(models.TextChoices):
        RESEARCHER = "researcher", _("Researcher")
        ANNOTATOR = "annotator", _("Annotator")

    role = models.CharField(max_length=20, choices=Role.choices, default=Role.ANNOTATOR)

    @property
    def display_name(self) -> str:
        """The name a dataset credits its creator by: the full name, else the username."""
        return self.get_full_name() or self.username

    @property
    def is_researcher(self) -> bool:
        return self.role == self.Role.RESEARCHER

    @property
    def is_annotator(self) -> bool:
        return self.role == self.Role.ANNOTATOR


def _hash_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


class ApiTokenQuerySet(models.QuerySet):
    def active(self):
        return self.filter(revoked_at__isnull=True)


class ApiToken(models.Model):
    """A named API key. Only its SHA-256 is stored; the key is shown once, at creation."""

    PREFIX_LENGTH = 8

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=PREFIX_LENGTH, db_index=True)
    key_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    objects = ApiTokenQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None

    @staticmethod
    def generate_key() -> str:
        return secrets.token_urlsafe(32)

    @staticmethod
    def hash_key(key: str) -> str:
        return _hash_key(key)


class Job(models.Model):
    """One background run (an analysis, an import, an export) and its visible state."""

    class State(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    kind = models.CharField(max_length=60, db_index=True)
    state = models.CharField(
        max_length=10, choices=State.choices, default=State.QUEUED, db_index=True
    )
    progress = models.FloatField(default=0.0, help_text="0 to 1")
    message = models.CharField(max_length=300, blank=True)
    error = models.TextField(blank=True)
    params = models.JSONField(default=dict, blank=True)
    result = models.JSONField(default=dict, blank=True)
    result_file = models.FileField(upload_to="jobs/%Y/%m/", storage=private_storage, blank=True)
    # What the job is about, as "<app>.<model>:<pk>", so pages can list a study's or a
    # project's jobs without a generic foreign key on every row.
    subject = models.CharField(max_length=80, blank=True, db_index=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="jobs",
    )
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    started_at = models.DateTimeField(null=True, blank=True)
    # Set when the job starts and at every progress report: a running job whose
    # heartbeat is old lost its worker, and a redelivered message may run it again.
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    # How many times a worker started it: a job re-queued after its worker died counts again,
    # so one that kills every worker it meets is stopped after a few tries.
    attempts = models.PositiveSmallIntegerField(default=0)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.kind} #{self.pk} ({self.state})"

    @property
    def is_finished(self) -> bool:
        return self.state in (self.State.DONE, self.State.FAILED)

    @property
    def duration_seconds(self) -> float | None:
        if self.started_at and self.finished_at:
            return (self.finished_at - self.started_at).total_seconds()
        return None


class AuditEntry(models.Model):
    """A logged decision a person made (an override, a manual qualification, a gold edit)."""

    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    action = models.CharField(max_length=60, db_index=True)
    subject = models.CharField(max_length=80, db_index=True)
    reason = models.TextField(blank=True)
    details = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name_plural = "audit entries"

    def __str__(self) -> str:
        return f"{self.action} {self.subject}"
