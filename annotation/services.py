"""Writes for annotation projects and their membership."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction

from annotation.models import Project, ProjectMember
from core.models import User
from studies.services import unique_slug


class InviteError(ValidationError):
    pass


def project_create(*, owner: User, title: str, description: str = "", slug: str = "") -> Project:
    return Project.objects.create(
        owner=owner, title=title, description=description, slug=slug or unique_slug(Project, title)
    )


def project_for_invite(*, code: str) -> Project:
    project = Project.objects.filter(invite_code=code).first()
    if project is None:
        raise InviteError("This invite link is not valid. Ask the researcher for a new one.")
    if not project.accepting_annotators:
        raise InviteError("This project is not taking new annotators at the moment.")
    return project


def project_join(*, project: Project, annotator: User) -> ProjectMember:
    if not annotator.is_annotator:
        raise InviteError("Only annotator accounts can join a project. Sign in as an annotator.")
    member, _ = ProjectMember.objects.get_or_create(project=project, annotator=annotator)
    return member


@transaction.atomic
def annotator_sign_up(*, project: Project, username: str, password: str, email: str = "") -> User:
    """Create an annotator account and its membership together, or neither."""
    user = User.objects.create_user(
        username=username, password=password, email=email, role=User.Role.ANNOTATOR
    )
    project_join(project=project, annotator=user)
    return user
