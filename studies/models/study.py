"""Chart studies."""

from django.conf import settings
from django.db import models
from django.utils import timezone

__all__ = ["Study"]


class StudyQuerySet(models.QuerySet):
    def visible_to(self, user):
        """Studies the researcher owns or that were shared with them."""
        if not (user.is_authenticated and user.is_researcher):
            return self.none()
        return self.filter(models.Q(owner=user) | models.Q(collaborators=user)).distinct()


class Study(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        PILOT = "pilot", "Pilot"
        LIVE = "live", "Live"
        PAUSED = "paused", "Paused"
        CLOSED = "closed", "Closed"

    title = models.CharField(max_length=200)
    slug = models.SlugField(max_length=80, unique=True)
    description = models.TextField(blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="owned_studies"
    )
    collaborators = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="shared_studies"
    )
    created_at = models.DateTimeField(default=timezone.now)

    objects = StudyQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        verbose_name_plural = "studies"

    def __str__(self) -> str:
        return self.title
