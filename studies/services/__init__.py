"""Writes for studies. (This package replaces studies/services.py, which it shadows.)"""

from __future__ import annotations

from django.utils.text import slugify

from core.models import User
from studies.models import Study


def unique_slug(model, text: str, *, max_length: int = 80) -> str:
    base = slugify(text)[: max_length - 8] or "item"
    slug, n = base, 1
    while model.objects.filter(slug=slug).exists():
        n += 1
        slug = f"{base}-{n}"
    return slug


def study_create(*, owner: User, title: str, description: str = "") -> Study:
    return Study.objects.create(
        owner=owner, title=title, description=description, slug=unique_slug(Study, title)
    )
