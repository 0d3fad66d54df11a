"""Is a study ready to run? Blockers stop pilot and live; warnings must be confirmed.

Each item names what fixes it (``fix``: a settings field, the pairs, the attention
checks, or a pair in the chart library), so the pages can link to that very field and
the API can name it.
"""

from __future__ import annotations

from dataclasses import dataclass

from studies import answer_types, answers
from studies.models import Platform, Question, Study
from studies.ordering import max_gap
from studies.selectors.languages import language_name, translation_gaps
from studies.selectors.timing import study_expected_minutes
from studies.starter_texts import texts_with_placeholders

# Where an item is fixed: a settings field name, or one of these.
PAIRS = "pairs"
CHECKS = "checks"
PAIR = "pair"  # a pair of the chart library: args are the chart set's slug and the pair code
TRANSLATIONS = "translations"  # the study's translations page: args are the language code
TEXT_LABELS = {
    "consent_text": "consent text",
    "instructions_text": "instructions text",
    "debrief_text": "debrief text",
}
RECRUITERS = (Platform.PROLIFIC, Platform.SONA, Platform.MTURK)


@dataclass(frozen=True)
class ReadinessItem:
    code: str
    message: str
    fix: str
    fix_args: tuple[str, ...] = ()

    def as_dict(self) -> dict:
        return {"code": self.code, "message": self.message, "field": self.fix}


def _pair_blockers(study: Study, pair_ids: list[int]) -> list[ReadinessItem]:
    items = []
    complete = set(Question.objects.filter(id__in=pair_ids).complete().values_list("id", flat=True))
    questions = (
        Question.objects.filter(id__in=pair_ids)
        .select_related("chart_set")
        .only("code", "text", "answer_type", "options", "answer_key", "chart_set__slug")
    )
    for question in questions:
        where = (question.chart_set.slug, question.code)
        if question.id not in complete:
            items.append(
                ReadinessItem(
                    "pair_incomplete",
                    f"Pair {question.code} lacks one of its two charts.",
                    PAIR,
                    where,
                )
            )
        options = question.kind.question_options(question.options, question.text)
        try:
            answer_types.normalize_key(question.answer_type, question.answer_key, options=options)
        except answers.KeyFormatError as exc:
            items.append(
                ReadinessItem("pair_key", f"Pair {question.code}: {exc.message}", PAIR, where)
            )
    if study.min_gap > max_gap(len(pair_ids)):
        if study.min_gap == 1:
            # The gap cannot go lower: the two charts of a pair are never shown in a row.
            text = (
                "A study needs at least 2 pairs: the two charts of a pair are never shown one "
                "right after the other. Add pairs."
            )
            where = PAIRS
        else:
            text = (
                f"A minimum gap of {study.min_gap} needs at least {study.min_gap + 1} pairs; "
                "lower the gap or add pairs."
            )
            where = "min_gap"
        items.append(ReadinessItem("min_gap", text, where))
    return items


def trials_per_session(study: Study) -> int:
    """Each participant's trials: both charts of every chosen pair and every attention check."""
    return 2 * study.study_pairs.count() + study.attention_checks.count()


def study_blockers(study: Study) -> list[ReadinessItem]:
    """What stops the study from running (empty when it can go to pilot or live)."""
    items = []
    pair_ids = list(study.study_pairs.values_list("question_id", flat=True))
    if not pair_ids:
        items.append(ReadinessItem("no_pairs", "Choose at least one chart pair.", PAIRS))
    else:
        items += _pair_blockers(study, pair_ids)
    total = trials_per_session(study)
    for check in study.attention_checks.exclude(position__isnull=True):
        if check.position > total:
            items.append(
                ReadinessItem(
                    "check_position",
                    f"Attention check at position {check.position} is beyond the last trial "
                    f"({total}).",
                    CHECKS,
                )
            )
    if not study.consent_text.strip():
        items.append(ReadinessItem("consent_text", "Write the consent text.", "consent_text"))
    if not study.instructions_text.strip():
        items.append(
            ReadinessItem("instructions_text", "Write the instructions.", "instructions_text")
        )
    # Consent must be given in words the participant reads; other texts fall back.
    for gap in translation_gaps(study):
        if gap.what == "consent text":
            items.append(
                ReadinessItem("translation_consent", gap.message, TRANSLATIONS, (gap.language,))
            )
    if study.platform in RECRUITERS and not (study.completion_code or study.completion_url):
        items.append(
            ReadinessItem(
                "completion",
                "Give a completion code or a completion URL for the recruitment platform.",
                "completion_code",
            )
        )
    return items


def study_warnings(study: Study) -> list[ReadinessItem]:
    """What a researcher should know before running the study; each must be confirmed."""
    items = []
    if not study.attention_checks.exists():
        items.append(
            ReadinessItem(
                "no_attention_checks",
                "The study has no attention checks, so inattentive participants cannot be told "
                "apart from misled ones.",
                CHECKS,
            )
        )
    # On a recruitment platform this is a blocker already.
    if not (study.completion_code or study.completion_url) and study.platform not in RECRUITERS:
        items.append(
            ReadinessItem(
                "no_completion",
                "Finished participants get neither a completion code nor a redirect, so they "
                "have no proof that they finished.",
                "completion_code",
            )
        )
    for name in texts_with_placeholders(study):
        label = TEXT_LABELS[name]
        items.append(
            ReadinessItem(
                f"{name}_placeholder",
                f"The {label} still has a [placeholder] of the starter text to fill in.",
                name,
            )
        )
    for gap in translation_gaps(study):
        if gap.what != "consent text":
            items.append(
                ReadinessItem(
                    "translation_missing",
                    gap.message + " Participants taking it in that language read the "
                    f"{language_name(study.language)} text instead.",
                    TRANSLATIONS,
                    (gap.language,),
                )
            )
    expected = study_expected_minutes(study)
    if expected and study.time_limit_minutes < expected:
        items.append(
            ReadinessItem(
                "time_limit_short",
                f"The time limit ({study.time_limit_minutes} min) is shorter than the expected "
                f"duration ({expected} min): many participants would run out of time.",
                "time_limit_minutes",
            )
        )
    return items
