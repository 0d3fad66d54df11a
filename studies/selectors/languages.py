"""The languages a study speaks, which one a participant sees, and the researcher's texts in it.

The one rule: a researcher's text in language L is the translation for L when one was
written, otherwise the text in the study's primary language. Translations are kept on
the study, one JSON object per language (``Study.translations``)::

    {"de": {"consent_text": "...", "instructions_text": "...", "debrief_text": "...",
            "title": "...", "description": "...",
            "questions": {"<question id>": {"text": "...", "options": ["...", ...]}},
            "checks": {"<attention check id>": {"prompt": "...", "options": ["...", ...]}}}}

Answers are always stored against the primary language's options (by index, or as
the primary texts for rankings), so every language scores and exports alike.
"""

from __future__ import annotations

import copy
from collections import OrderedDict
from dataclasses import dataclass

from django.conf import settings

from studies import answer_types
from studies.models import AttentionCheck, ParticipantSession, Question, Study

# The study's own texts that a translation can give, with how the pages name them.
STUDY_TEXTS = {
    "title": "title",
    "description": "description",
    "consent_text": "consent text",
    "instructions_text": "instructions",
    "debrief_text": "debrief text",
}


def language_names() -> dict[str, str]:
    return dict(settings.LANGUAGES)


def language_name(code: str) -> str:
    return language_names().get(code, code)


def _accepted(header: str) -> list[str]:
    """The primary subtags of an Accept-Language header, most wanted first."""
    ranked = []
    for index, part in enumerate(header.split(",")[:20]):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        if params.strip().startswith("q="):
            try:
                quality = float(params.strip()[2:])
            except ValueError:
                quality = 0.0
        code = tag.strip().split("-")[0].lower()
        if code and code != "*" and quality > 0:
            ranked.append((-quality, index, code))
    return [code for _q, _i, code in sorted(ranked)]


def language_choose(study: Study, *, asked: str = "", accept_language: str = "") -> str:
    """The language a new participant sees: the link's ``lang`` when the study offers it,
    else the browser's first preference the study offers, else the primary language."""
    offered = study.languages
    asked = (asked or "").strip().lower()[:10]
    if asked in offered:
        return asked
    for code in _accepted(accept_language or ""):
        if code in offered:
            return code
    return study.language


def session_language(session) -> str:
    """A session's language; sessions from before languages existed read the primary one."""
    return session.language or session.study.language


# A session's language is set when it starts and never changes, so each process keeps
# what it has read (or started) and an answer's request needs no query to speak it.
# Bounded: the oldest tokens go first, and a forgotten one is simply read again.
_TOKEN_LANGUAGES: OrderedDict[str, str] = OrderedDict()
_TOKEN_LANGUAGES_MAX = 50_000


def token_language_remember(token: str, language: str) -> None:
    """Keep ``language`` as the session's with this token (called where sessions start)."""
    if not token or not language:
        return
    _TOKEN_LANGUAGES[token] = language
    if len(_TOKEN_LANGUAGES) > _TOKEN_LANGUAGES_MAX:
        _TOKEN_LANGUAGES.popitem(last=False)


def token_language(token: str) -> str | None:
    """The language of the session with this token, or None when no session has it: for a
    request to speak before its view reads the session. One small query the first time a
    process meets the token, none after."""
    if not token or len(token) > 64:
        return None
    known = _TOKEN_LANGUAGES.get(token)
    if known is not None:
        return known
    row = (
        ParticipantSession.objects.filter(token=token)
        .values_list("language", "study__language")
        .first()
    )
    if row is None:
        return None
    if row[0]:
        token_language_remember(token, row[0])
    return row[0] or row[1]


def _translation(study: Study, language: str) -> dict:
    if language == study.language:
        return {}
    found = (study.translations or {}).get(language)
    return found if isinstance(found, dict) else {}


def _given(value) -> str:
    return value.strip() if isinstance(value, str) else ""


def study_in_language(study: Study, language: str) -> Study:
    """An unsaved copy of the study whose texts read in ``language``, for the pages.

    The templates keep reading ``study.consent_text`` and the like, whatever the language.
    """
    if language == study.language:
        return study
    shown = copy.copy(study)
    given = _translation(study, language)
    # Only the translated texts are replaced: the others stay the primary's, and a text
    # the page never reads is never loaded.
    for name in STUDY_TEXTS:
        if _given(given.get(name)):
            setattr(shown, name, _given(given[name]))
    return shown


def _usable(given, primary: list[str]) -> bool:
    # Options are matched by position, so a list of another length cannot be used.
    return (
        isinstance(given, list)
        and len(given) == len(primary)
        and all(isinstance(o, str) and o.strip() for o in given)
    )


def _options(given, primary: list[str]) -> list[str]:
    return [o.strip() for o in given] if _usable(given, primary) else list(primary)


@dataclass(frozen=True)
class ShownTexts:
    prompt: str
    options: list[str]


def question_texts(study: Study, question: Question, language: str) -> ShownTexts:
    """A question's prompt and options as a trial shows them in ``language``.

    Each text falls back to the primary language on its own: translated options show
    under an untranslated question text, and the other way round.
    """
    options, _key = answer_types.question_key(question)
    kind = question.kind
    given = _translation(study, language).get("questions", {}).get(str(question.pk))
    given = given if isinstance(given, dict) else {}
    text = _given(given.get("text"))
    # A translated question is written whole, stem included.
    prompt = kind.prompt_text(text, "") if text else kind.prompt_text(question.text, question.stem)
    return ShownTexts(prompt, _options(given.get("options"), list(options)))


def check_texts(study: Study, check: AttentionCheck, language: str) -> ShownTexts:
    """An attention check's prompt and options in ``language``, each falling back on its own."""
    options = list(check.options or [])
    given = _translation(study, language).get("checks", {}).get(str(check.pk))
    given = given if isinstance(given, dict) else {}
    prompt = _given(given.get("prompt")) or check.prompt
    return ShownTexts(prompt, _options(given.get("options"), options))


@dataclass(frozen=True)
class Gap:
    """A text the researcher has not yet translated into one of the study's languages."""

    language: str
    what: str

    @property
    def message(self) -> str:
        # No verb to agree: "the instructions" and "the options of pair G3_Q1" are plural.
        return f"{language_name(self.language)}: no translation yet of the {self.what}."


def translation_gaps(study: Study) -> list[Gap]:
    """Every text of the primary language that a further language lacks."""
    gaps = []
    questions = list(
        Question.objects.filter(study_pairs__study=study).order_by("study_pairs__position", "id")
    )
    checks = list(study.attention_checks.order_by("id"))
    for language in study.languages[1:]:
        tr = _translation(study, language)
        for name, label in STUDY_TEXTS.items():
            if getattr(study, name).strip() and not _given(tr.get(name)):
                gaps.append(Gap(language, label))
        for question in questions:
            given = tr.get("questions", {}).get(str(question.pk)) or {}
            options, _key = answer_types.question_key(question)
            if not _given(given.get("text")):
                gaps.append(Gap(language, f"question of pair {question.code}"))
            elif options and not _usable(given.get("options"), list(options)):
                gaps.append(Gap(language, f"options of pair {question.code}"))
        for number, check in enumerate(checks, start=1):
            given = tr.get("checks", {}).get(str(check.pk)) or {}
            if not _given(given.get("prompt")):
                gaps.append(Gap(language, f"attention check {number}"))
            elif check.options and not _usable(given.get("options"), check.options):
                gaps.append(Gap(language, f"options of attention check {number}"))
    return gaps


def sessions_by_language(study: Study, session_ids) -> dict[str, list[int]]:
    """The sessions' ids by language, in the study's order of languages (then any other
    language sessions were taken in before it was removed from the study)."""
    found: dict[str, list[int]] = {code: [] for code in study.languages}
    rows = ParticipantSession.objects.filter(id__in=list(session_ids)).values_list("id", "language")
    for sid, language in rows.order_by("id"):
        found.setdefault(language or study.language, []).append(sid)
    return found


def session_languages(study: Study) -> dict[int, str]:
    """session id -> its language, for the exports."""
    rows = ParticipantSession.objects.filter(study=study).values_list("id", "language")
    return {sid: language or study.language for sid, language in rows.iterator()}
