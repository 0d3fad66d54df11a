"""Reads about studies: set-up readiness, availability, participant lookups (the monitor: selectors.monitor)."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, F, Q, QuerySet
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from core.db.compiled import CompiledQuery
from core.models import User
from studies import answer_types, answers
from studies.models import (
    AttentionCheck,
    ParticipantSession,
    Question,
    Response,
    Study,
    Trial,
)
from studies.selectors import languages
from studies.selectors.readiness import study_blockers

Status = ParticipantSession.Status


# ------------------------------------------------------------------ researcher lookups


def studies_for_user(*, user: User) -> QuerySet[Study]:
    return (
        Study.objects.visible_to(user)
        .select_related("owner", "chart_set")
        .annotate(pair_count=Count("study_pairs", distinct=True))
        .order_by("-created_at", "-id")
    )


def study_get(*, user: User, slug: str) -> Study:
    study = (
        Study.objects.visible_to(user)
        .select_related("owner", "chart_set")
        .filter(slug=slug)
        .first()
    )
    if study is None:
        raise Http404("No such study.")
    return study


def study_pair_questions(study: Study) -> QuerySet[Question]:
    return (
        Question.objects.filter(study_pairs__study=study)
        .select_related("group", "group__manipulation")
        .order_by("study_pairs__position", "study_pairs__id")
    )


def chart_set_pairs(chart_set) -> QuerySet[Question]:
    """Questions of a chart set with their charts, for choosing a study's pairs."""
    return (
        Question.objects.filter(chart_set=chart_set)
        .select_related("group", "group__manipulation")
        .prefetch_related("charts")
        .order_by("group__code", "code")
    )


def complete_pair_ids(chart_set) -> list[int]:
    """The ids of a chart set's pairs that have both charts, for "use every complete pair"."""
    return list(
        Question.objects.filter(chart_set=chart_set)
        .complete()
        .order_by("group__code", "code")
        .values_list("id", flat=True)
    )


def study_has_live_sessions(study: Study) -> bool:
    """Whether real participants have started; a decline started nothing (no trial order)."""
    return (
        ParticipantSession.objects.counted()
        .filter(study=study)
        .exclude(status=ParticipantSession.Status.DECLINED)
        .exists()
    )


@dataclass(frozen=True)
class PilotSessionCounts:
    """What "Delete pilot and preview sessions" would delete."""

    pilot: int
    preview: int
    answers: int

    @property
    def sessions(self) -> int:
        return self.pilot + self.preview


def study_test_sessions(study: Study) -> PilotSessionCounts:
    tests = ParticipantSession.objects.filter(study=study).filter(
        Q(is_pilot=True) | Q(is_preview=True)
    )
    counts = tests.aggregate(
        pilot=Count("id", filter=Q(is_pilot=True)), preview=Count("id", filter=Q(is_preview=True))
    )
    answers = Response.objects.filter(session__in=tests).count()
    return PilotSessionCounts(counts["pilot"], counts["preview"], answers)


def study_design_locked(study: Study) -> bool:
    """The pairs, checks, seed and gap are fixed once real participants have started."""
    return study_has_live_sessions(study)


def study_readiness(study: Study) -> list[str]:
    """What stops the study from running (empty when it can go to pilot or live)."""
    return [item.message for item in study_blockers(study)]


# ------------------------------------------------------------------ availability


@dataclass(frozen=True)
class Unavailable:
    code: str
    message: str
    heading: str = gettext_lazy("Thank you for your interest")


def study_counted_places(study: Study, *, now=None) -> int:
    """Places taken: completed participants who pass the attention rule, plus active sessions."""
    now = now or timezone.now()
    return (
        ParticipantSession.objects.counted()
        .filter(study=study)
        .filter(
            Q(status=Status.COMPLETED, attention_failures__lte=study.max_attention_failures)
            | Q(status=Status.IN_PROGRESS, deadline__gt=now)
        )
        .count()
    )


def study_unavailable_reason(study: Study, *, now=None) -> Unavailable | None:
    """Why a new participant cannot start now, or None when they can."""
    if study.status == Study.Status.DRAFT:
        return Unavailable("not_open", _("This study is not open yet. Please try again later."))
    if study.status == Study.Status.PAUSED:
        return Unavailable(
            "paused", _("This study is paused at the moment. Please try again a little later.")
        )
    if study.status == Study.Status.CLOSED:
        return Unavailable("closed", _("This study has closed. Thank you for your interest."))
    if study.status == Study.Status.LIVE and study.stopped_at is not None:
        # The stopping rule was met (studies/services/study/stopping.py).
        return Unavailable(
            "full",
            _("This study has all the participants it needs. Thank you for your interest."),
            _("This study is full"),
        )
    if (
        study.status == Study.Status.LIVE
        and study.target_participants
        and study_counted_places(study, now=now) >= study.target_participants
    ):
        return Unavailable(
            "full",
            _("This study has all the participants it needs. Thank you for your interest."),
            _("This study is full"),
        )
    return None


# ------------------------------------------------------------------ participant lookups


# Participants hit these reads on every page and answer, so they fetch only the
# columns those use: Django's per-column cost and the stored order (a few kB of
# JSON per session) dominate a request otherwise. Other fields still load on
# first access, with one more query, on the pages that need them.
SESSION_FIELDS = (
    "id", "token", "study_id", "number", "is_pilot", "is_preview", "status", "platform",
    "external_id", "current_position", "trial_count", "attention_failures", "answers_deleted",
    "consented_at", "instructions_done_at", "deadline", "completed_at", "ended_at", "debriefed_at",
    "language",
)  # fmt: skip
SESSION_STUDY_FIELDS = tuple(
    f"study__{name}"
    for name in (
        "id", "title", "slug", "status", "platform", "completion_code", "completion_url",
        "time_limit_minutes", "expected_minutes", "keep_answers_on_withdrawal",
        "instructions_video", "language", "translations", "fast_answer_commit", "stopping_rule",
        "stopped_at",
    )
)  # fmt: skip
TRIAL_FIELDS = (
    "id", "session_id", "position", "kind", "item_order", "shown_at",
    "chart__id", "chart__chart_id", "chart__version", "chart__image", "chart__width",
    "chart__height", "chart__alt_text",
    "question__id", "question__code", "question__text", "question__stem", "question__answer_type",
    "question__options", "question__answer_key", "question__key_value", "question__tolerance",
    "attention_check__id", "attention_check__kind", "attention_check__prompt",
    "attention_check__image", "attention_check__width", "attention_check__height",
    "attention_check__alt_text", "attention_check__answer_type", "attention_check__options", "attention_check__answer_key",
    "attention_check__tolerance",
)  # fmt: skip


def participant_sessions(*, with_study: bool = True):
    """The queryset the participant pages and services read sessions through."""
    if with_study:
        return ParticipantSession.objects.select_related("study").only(
            *SESSION_FIELDS, *SESSION_STUDY_FIELDS
        )
    return ParticipantSession.objects.only(*SESSION_FIELDS)


def participant_trials():
    return Trial.objects.select_related("chart", "question", "attention_check").only(*TRIAL_FIELDS)


def _one(queryset):
    # get() drops the ordering that first() would add to a lookup by a unique key.
    try:
        return queryset.get()
    except queryset.model.DoesNotExist:
        return None


def session_by_token(token: str, *, with_study: bool = True) -> ParticipantSession | None:
    return _one(participant_sessions(with_study=with_study).filter(token=token))


def trial_current(session: ParticipantSession) -> Trial | None:
    if session.current_position >= session.trial_count:
        return None
    return _one(participant_trials().filter(session=session, position=session.current_position))


SESSION_JOINED_FIELDS = tuple(f"session__{name}" for name in SESSION_FIELDS + SESSION_STUDY_FIELDS)


def participant_trials_with_session():
    """Trials with their session and its study, for reading both in one query."""
    return (
        participant_trials()
        .select_related("session", "session__study")
        .only(*TRIAL_FIELDS, *SESSION_JOINED_FIELDS)
    )


def _current_trials(token: str):
    here = F("session__current_position")
    return (
        participant_trials_with_session()
        .filter(session__token=token)
        .filter(Q(position=here) | Q(position=here + 1))
        .order_by("position")
    )


# Compiled once: each trial page and first trial reads it (core/db/compiled.py).
_CURRENT_TRIALS = CompiledQuery(_current_trials, token="\x1fsample-token")


def trial_current_by_token(token: str) -> tuple[Trial | None, Trial | None]:
    """(the current trial, the one after it) with the session and study, in one query.

    (None, None) when the session is unknown or has no current trial (it is over):
    the caller then reads the session alone.
    """
    trials = _CURRENT_TRIALS(token=token)
    if not trials:
        return None, None
    return trials[0], (trials[1] if len(trials) > 1 else None)


def session_for_researcher(*, study: Study, pk: int) -> ParticipantSession:
    session = ParticipantSession.objects.filter(study=study, pk=pk).first()
    if session is None:
        raise Http404("No such participant session.")
    return session


def session_trials(session: ParticipantSession) -> QuerySet[Trial]:
    """Every trial of a session with its chart or check and its response, in order."""
    return (
        Trial.objects.filter(session=session)
        .select_related("chart", "question", "attention_check", "response")
        .order_by("position")
    )


def attention_checks_for(study: Study) -> QuerySet[AttentionCheck]:
    """The study's checks, each with how often it was shown to a participant.

    A session lays out all its trials when it starts, so a trial that exists was not
    necessarily reached: only one shown counts, and never a researcher's preview.
    """
    reached = Q(trials__shown_at__isnull=False) | Q(trials__response__isnull=False)
    shown = reached & Q(trials__session__is_preview=False)
    return (
        AttentionCheck.objects.filter(study=study)
        .annotate(shown=Count("trials", filter=shown))
        .order_by("id")  # the order check_numbers counts in
    )


def check_numbers(study: Study) -> dict[int, int]:
    """Each attention check's number in its study (1, 2, ...), by the order they were added.

    The one numbering every page says "Attention check 2" by (the checks list, the
    translations, readiness, a participant's trials, the delete page); ids run across
    studies and would name the same check differently.
    """
    ids = AttentionCheck.objects.filter(study=study).order_by("id").values_list("id", flat=True)
    return {pk: number for number, pk in enumerate(ids, start=1)}


def trial_spec(trial: Trial) -> tuple[str, list, object, float]:
    """(answer type, options, key, tolerance) of a trial's question or attention check."""
    if trial.is_attention:
        check = trial.attention_check
        return check.answer_type, list(check.options or []), check.answer_key, check.tolerance
    question = trial.question
    options, key = answer_types.question_key(question)
    return question.answer_type, options, key, question.tolerance


@dataclass(frozen=True)
class TrialDisplay:
    """What a trial page shows: the chart, the question and the answer widget's choices."""

    answer_type: str
    prompt: str
    options: list[str]
    # Ranking items as (option index, text), in the order first listed.
    items: list[tuple[int, str]]
    image: object
    width: int
    height: int
    alt: str


def trial_image(trial: Trial | None):
    """The chart a trial shows (its attention check's, for a check), or None.

    Cheaper than :func:`trial_display` when only the chart is wanted (the next trial's,
    fetched ahead): it reads no texts."""
    if trial is None:
        return None
    shown = trial.attention_check if trial.is_attention else trial.chart
    return shown.image or None


def trial_display(trial: Trial, session: ParticipantSession) -> TrialDisplay:
    """The trial of ``session`` as shown, its texts in the session's language."""
    answer_type, _options, _key, _tolerance = trial_spec(trial)
    study = session.study
    language = languages.session_language(session)
    if trial.is_attention:
        check = trial.attention_check
        shown = languages.check_texts(study, check, language)
        width, height = check.width, check.height
        alt = check.alt_text or _("Chart for this question")
    else:
        question, chart = trial.question, trial.chart
        shown = languages.question_texts(study, question, language)
        width, height = chart.width, chart.height
        alt = chart.alt_text or _("Chart for this question")
    items = []
    if answer_types.get_type(answer_type).orders_items:
        display = trial.item_order or list(range(len(shown.options)))
        items = [(i, shown.options[i]) for i in display]
    image = trial_image(trial)
    return TrialDisplay(
        answer_type=answer_type,
        prompt=answers.normalize_line_breaks(shown.prompt).strip(),
        options=shown.options,
        items=items,
        image=image,
        width=width,
        height=height,
        alt=alt if image else "",  # an instructed-response check shows no chart
    )
