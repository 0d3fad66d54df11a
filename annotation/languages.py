"""The language an annotation project speaks to its annotators, and its texts per language.

A project's ``language`` picks the catalogue (locale/) for the platform's own words on the
work page, the qualification rounds and the guidelines. The researcher's texts (a project's
title, description and guidelines; a category's name, definition and example; a qualification
round's title) are written in
the fields themselves; ``translations`` may give them again per language, as
``{"es": {"name": "...", "definition": "..."}}``, and a text missing there falls back to the
field's own.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError

from annotation.defaults import standard_text_in
from annotation.models import Project

PROJECT_TEXTS = ("title", "description", "guidelines")
CATEGORY_TEXTS = ("name", "definition", "example")
ROUND_TEXTS = ("title",)
MAX_TEXT_CHARS = 20_000


def language_codes() -> list[str]:
    return [code for code, _name in settings.LANGUAGES]


def check_language(code) -> str:
    """The code of one of the platform's languages, or ValidationError."""
    if code not in language_codes():
        raise ValidationError(
            f"Choose one of the languages the platform speaks: {', '.join(language_codes())}."
        )
    return code


def clean_translations(value, fields: tuple[str, ...]) -> dict[str, dict[str, str]]:
    """``{language: {field: text}}`` with known languages and fields only; empty texts dropped."""
    if value in (None, ""):
        return {}
    if not isinstance(value, dict):
        raise ValidationError('Give translations as {"de": {"name": "..."}, ...}.')
    cleaned: dict[str, dict[str, str]] = {}
    for code, texts in value.items():
        check_language(code)
        if not isinstance(texts, dict):
            raise ValidationError(f"The translations for “{code}” must be an object of texts.")
        unknown = set(texts) - set(fields)
        if unknown:
            raise ValidationError(
                f"Only {', '.join(fields)} can be translated (not {', '.join(sorted(unknown))})."
            )
        kept = {}
        for field, text in texts.items():
            # A NUL character cannot be stored in PostgreSQL's JSON.
            if not isinstance(text, str) or len(text) > MAX_TEXT_CHARS or "\x00" in text:
                raise ValidationError(
                    f"The “{code}” {field} must be text of at most {MAX_TEXT_CHARS} characters."
                )
            if text.strip():
                kept[field] = text.strip()
        if kept:
            cleaned[code] = kept
    return cleaned


def text_in(obj, field: str, language: str) -> str:
    """``obj.field`` in ``language``: its translation if given, else the platform's own
    translation of a standard text left as it was (the default guidelines), else the
    field's own text."""
    given = ((obj.translations or {}).get(language) or {}).get(field)
    if given:
        return given
    own = getattr(obj, field)
    return standard_text_in(field, own, language) or own


def show_in(objects, fields: tuple[str, ...], language: str):
    """The objects with their texts in ``language``, for display only: never save them."""
    for obj in objects:
        for field in fields:
            setattr(obj, field, text_in(obj, field, language))
    return objects


def project_language(*, slug: str | None = None, assignment_id: int | None = None) -> str | None:
    """The language of the project a URL names, by its slug or by one of its assignments."""
    if slug is not None:
        found = Project.objects.filter(slug=slug)
    elif assignment_id is not None:
        found = Project.objects.filter(assignments__pk=assignment_id)
    else:
        return None
    return found.values_list("language", flat=True).first()
