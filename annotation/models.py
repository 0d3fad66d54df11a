"""Caption annotation projects and their annotators."""

import secrets

from django.conf import settings
from django.db import models
from django.utils import timezone


def new_invite_code() -> str:
    return secrets.token_urlsafe(12)


class ProjectQuerySet(models.QuerySet):
    def visible_to(self, user):
        """Projects the researcher owns or that were shared with them."""
        if not (user.is_authenticated and user.is_researcher):
            return self.none()
        return self.filter(models.Q(owner=user) | models.Q(collaborators=user)).distinct()

    def joined_by(self, user):
        if not (user.is_authenticated and user.is_annotator):
            return self.none()
        return self.filter(members__annotator=user)


class Project(models.Model):
    title = models.CharField(max_length=200)
    slug = models.SlugField(max_length=80, unique=True)
    description = models.TextField(blank=True)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="owned_projects"
    )
    collaborators = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="shared_projects"
    )
    invite_code = models.CharField(max_length=40, unique=True, default=new_invite_code)
    accepting_annotators = models.BooleanField(default=True)
    created_at = models.DateTimeField(default=timezone.now)

    objects = ProjectQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.title


class ProjectMember(models.Model):
    """An annotator who joined a project through its invite code."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="members")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    joined_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["project", "annotator"], name="one_membership_per_annotator"
            )
        ]

    def __str__(self) -> str:
        return f"{self.annotator} in {self.project}"
