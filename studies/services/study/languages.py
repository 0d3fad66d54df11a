"""Writing a study's languages and the researcher's translations of its texts.

How the translations are read (and fall back to the primary language) is in
:mod:`studies.selectors.languages`.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError

from core.models import User
from core.services.audit import audit_record
from studies import answer_types
from studies.models import Question, Study
from studies.selectors.languages import STUDY_TEXTS, language_names

MAX_TEXT = 20_000


def languages_clean(language, other_languages) -> tuple[str, list[str]]:
    """The primary language and the others, checked against ``settings.LANGUAGES``."""
    names = language_names()
    offered = ", ".join(names)
    if language not in names:
        raise ValidationError({"language": f"Choose one of the offered languages ({offered})."})
    if not isinstance(other_languages, list | tuple) or not all(
        isinstance(c, str) for c in other_languages
    ):
        raise ValidationError({"other_languages": "Give a list of language codes."})
    unknown = [c for c in other_languages if c not in names]
    if unknown:
        raise ValidationError(
            {"other_languages": f"Not offered: {', '.join(unknown)} (choose from {offered})."}
        )
    others = []
    for code in other_languages:
        if code != language and code not in others:
            others.append(code)
    return language, others


def _text(value, where: str, limit: int = MAX_TEXT) -> str:
    if value is None:
        return ""
    if not isinstance(value, str) or len(value.strip()) > limit:
        raise ValidationError({where: f"Give a text of at most {limit} characters."})
    return value.strip()


def _study_text_limit(name: str) -> int:
    """A translated text is held to its original's limit (a title's 200 characters)."""
    return Study._meta.get_field(name).max_length or MAX_TEXT


class _Errors:
    """Every problem of one translation at once, each under its field: a page that showed
    the first only had the researcher save once per mistake."""

    def __init__(self):
        self.by_field: dict = {}

    def check(self, clean, *args, **kwargs):
        try:
            return clean(*args, **kwargs)
        except ValidationError as exc:
            for field, messages in exc.message_dict.items():
                self.by_field.setdefault(field, []).extend(messages)
            return None

    def raise_any(self) -> None:
        if self.by_field:
            raise ValidationError(self.by_field)


def _options(value, count: int, where: str) -> list[str]:
    if value in (None, []):
        return []
    if not isinstance(value, list) or not all(isinstance(o, str) and o.strip() for o in value):
        raise ValidationError({where: "Give the options as a list of texts."})
    if len(value) != count:
        raise ValidationError(
            {where: f"Give all {count} options, in the order of the original language."}
        )
    return [" ".join(o.split()) for o in value]


def _items(value, known: dict[str, int], text_key: str, where: str) -> dict:
    """Translated questions or checks: {id: {text_key: ..., "options": [...]}}."""
    if value in (None, {}):
        return {}
    if not isinstance(value, dict):
        raise ValidationError({where: "Give an object keyed by id."})
    cleaned = {}
    errors = _Errors()
    for key, given in value.items():
        key = str(key)
        if key not in known:
            errors.check(_refuse, where, f"{key} is not one of this study's ids.")
            continue
        if not isinstance(given, dict):
            errors.check(
                _refuse, f"{where}.{key}", f"Give {{{text_key!r}: ..., 'options': [...]}}."
            )
            continue
        text = errors.check(_text, given.get(text_key), f"{where}.{key}.{text_key}")
        options = errors.check(_options, given.get("options"), known[key], f"{where}.{key}.options")
        if text or options:
            cleaned[key] = {text_key: text or "", "options": options or []}
    errors.raise_any()
    return cleaned


def _refuse(where: str, message: str):
    raise ValidationError({where: message})


def translation_clean(study: Study, texts) -> dict:
    """One language's translation, checked and trimmed; unknown keys are refused."""
    if not isinstance(texts, dict):
        raise ValidationError("Give the translation as an object.")
    unknown = set(texts) - set(STUDY_TEXTS) - {"questions", "checks"}
    if unknown:
        raise ValidationError(dict.fromkeys(sorted(unknown), "Not a text that can be translated."))
    errors = _Errors()
    cleaned = {
        name: errors.check(_text, texts.get(name), name, _study_text_limit(name))
        for name in STUDY_TEXTS
    }
    cleaned = {k: v for k, v in cleaned.items() if v}
    questions = {
        str(q.pk): len(answer_types.question_key(q)[0])
        for q in Question.objects.filter(study_pairs__study=study)
    }
    checks = {str(c.pk): len(c.options or []) for c in study.attention_checks.all()}
    for name, known, text_key in (("questions", questions, "text"), ("checks", checks, "prompt")):
        items = errors.check(_items, texts.get(name), known, text_key, name)
        if items:
            cleaned[name] = items
    errors.raise_any()
    return cleaned


def study_translation_set(*, study: Study, actor: User | None, language: str, texts) -> Study:
    """Replace the researcher's texts in one of the study's further languages."""
    if language not in study.languages[1:]:
        raise ValidationError(
            {"language": "Add the language to the study's languages before translating into it."}
        )
    cleaned = translation_clean(study, texts)
    translations = dict(study.translations or {})
    translations[language] = cleaned
    study.translations = translations
    study.save(update_fields=["translations", "updated_at"])
    audit_record(
        actor=actor,
        action="study.translation.set",
        subject=study.subject,
        details={"language": language},
    )
    return study
