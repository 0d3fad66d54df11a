"""Unique URL slugs, shared by studies, chart sets and annotation projects."""

from __future__ import annotations

from django.utils.text import slugify

NO_WORDS_IN_TITLE = "Use some letters or digits in the title."


def title_has_words(title: str) -> bool:
    """Whether a title has a letter or digit in any script (图表研究 has; "!!!" has not)."""
    return any(ch.isalnum() for ch in title)


def unique_slug(model, text: str, *, max_length: int = 80) -> str:
    """A slug from ``text`` not yet used by any row of ``model`` ("title", "title-2", ...).

    Slugs are ASCII (URLs match them as such); a title with no Latin letters or digits
    (图表研究) takes the model's name instead ("study", "study-2", ...)."""
    base = slugify(text)[: max_length - 8] or slugify(model._meta.verbose_name) or "item"
    slug, n = base, 1
    while model.objects.filter(slug=slug).exists():
        n += 1
        slug = f"{base}-{n}"
    return slug
