"""Writes for studies. (This package replaces studies/services.py, which it shadows.)"""

from __future__ import annotations

from core.models import User
from core.slugs import unique_slug
from studies.models import Study

__all__ = ["study_create", "unique_slug"]  # unique_slug re-exported for older imports


def study_create(*, owner: User, title: str, description: str = "") -> Study:
    return Study.objects.create(
        owner=owner, title=title, description=description, slug=unique_slug(Study, title)
    )
