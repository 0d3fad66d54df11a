"""Unique URL slugs, shared by studies, chart sets and annotation projects."""

from __future__ import annotations

from django.utils.text import slugify


def unique_slug(model, text: str, *, max_length: int = 80) -> str:
    """A slug from ``text`` not yet used by any row of ``model`` ("title", "title-2", ...)."""
    base = slugify(text)[: max_length - 8] or "item"
    slug, n = base, 1
    while model.objects.filter(slug=slug).exists():
        n += 1
        slug = f"{base}-{n}"
    return slug
