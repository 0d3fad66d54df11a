"""Starting (or finding again) a participant's session, and recording a declined consent."""

from __future__ import annotations

import random
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from studies.answer_types import get_type
from studies.models import (
    AttentionCheck,
    Chart,
    ParticipantSession,
    Question,
    Study,
    Trial,
)
from studies.ordering import CHECK, CheckSlot, OrderError, build_order, derive_seed
from studies.selectors.languages import token_language_remember
from studies.selectors.study import study_unavailable_reason
from studies.services.sessions.errors import AlreadyStarted, StudyFull, StudyUnavailable
from studies.services.sessions.platform import Identity, wording


@dataclass(frozen=True)
class StartResult:
    session: ParticipantSession
    resumed: bool


def session_find(*, study: Study, identity: Identity) -> ParticipantSession | None:
    """The session this platform id already has in this study (pilot and live kept apart)."""
    if not identity.external_id:
        return None
    return (
        ParticipantSession.objects.filter(
            study=study,
            external_id=identity.external_id,
            is_pilot=study.status == Study.Status.PILOT,
            is_preview=False,
        )
        .exclude(
            status__in=(ParticipantSession.Status.DECLINED, ParticipantSession.Status.ABANDONED)
        )
        .first()
    )


def already_started_message(platform: str) -> str:
    """Why a platform id that already has a session cannot start another one here.

    The same words whatever became of that session (in progress, finished, timed out,
    withdrawn or excluded): platform ids are not secrets, so anyone typing someone
    else's id must learn nothing about how that person's participation went. Only the
    browser or client holding the session's token is told where it stands."""
    words = wording(platform)
    return _(
        "This study was already started with %(id_name)s, and each ID can take part only "
        "once. If you started it in another browser or on another device and have not "
        "finished, go back to the browser window where you started: your answers are kept "
        "there, and nothing here changes them. If you cannot go back, or think this is a "
        "mistake, %(contact)s."
    ) % {"id_name": words.id_name, "contact": words.contact}


def _resume(existing: ParticipantSession, *proofs: str) -> StartResult:
    """The existing session, only for a request that proves it holds it (its token)."""
    for proof in proofs:
        if proof and secrets.compare_digest(proof.encode(), existing.token.encode()):
            return StartResult(existing, resumed=True)
    raise AlreadyStarted(already_started_message(existing.platform))


@dataclass(frozen=True)
class _Design:
    """What a session's trials are drawn from: the study's pairs, their charts and
    questions, and its attention checks."""

    pair_ids: list[int]
    charts: dict[tuple[int, int], Chart]
    questions: dict[int, Question]
    checks: dict[int, AttentionCheck]


def _design(study: Study) -> _Design:
    # Read before the study row is locked: these rows are fixed once participants have
    # started (studies.selectors.study.study_design_locked), and their editors never took
    # that lock, so reading them under it protected nothing and only made concurrent
    # starts wait longer for each other.
    pair_ids = list(study.study_pairs.values_list("question_id", flat=True))
    charts = {
        (c.question_id, c.version): c
        for c in Chart.objects.filter(question_id__in=pair_ids).only("id", "question_id", "version")
    }
    questions = {
        q.id: q
        for q in Question.objects.filter(id__in=pair_ids).only(
            "id", "answer_type", "options", "answer_key"
        )
    }
    checks = {c.id: c for c in AttentionCheck.objects.filter(study=study)}
    return _Design(pair_ids, charts, questions, checks)


def _build_trials(
    *, study: Study, design: _Design, session: ParticipantSession, number: int
) -> tuple[list[Trial], list[dict]]:
    if not design.pair_ids:
        raise StudyUnavailable(_("This study has no charts yet."), reason="not_ready")
    try:
        order = build_order(
            pair_ids=design.pair_ids,
            checks=[CheckSlot(c.id, c.position) for c in design.checks.values()],
            study_seed=study.seed,
            participant_number=number,
            min_gap=study.min_gap,
        )
    except OrderError as exc:
        raise StudyUnavailable(
            _("This study cannot run yet: %(problem)s") % {"problem": exc}, reason="not_ready"
        ) from None
    session.order_seed = order.seed
    trials = []
    for position, item in enumerate(order.items):
        if item.kind == CHECK:
            check = design.checks[item.ref]
            trial = Trial(
                session=session, position=position, kind=Trial.Kind.ATTENTION, attention_check=check
            )
            answer_type, options, key = check.answer_type, check.options, check.answer_key
        else:
            chart = design.charts[(item.ref, 2 if item.manipulated else 1)]
            question = design.questions[item.ref]
            trial = Trial(
                session=session,
                position=position,
                kind=Trial.Kind.CHART,
                chart_id=chart.id,
                question_id=question.id,
            )
            answer_type, options, key = question.answer_type, question.options, question.answer_key
        kind = get_type(answer_type)
        if kind.orders_items and options:
            rng = random.Random(derive_seed(order.seed, "items", position))
            trial.item_order = kind.item_order(rng, options, key)
        trials.append(trial)
    return trials, order.as_json()


def session_start(
    *,
    study: Study,
    identity: Identity,
    preview: bool = False,
    proof: str = "",
    user_agent: str = "",
    language: str = "",
    token: str = "",
    now=None,
) -> StartResult:
    """Start a consented session, or return the one this platform id already has.
    ``token`` (start_tokens) is the new session's token, and proves a repeated form.

    The existing session is returned only with ``proof``: its token, from the
    cookie of the browser that started it or held by the JSON client that did.
    Without it the start is refused with :class:`AlreadyStarted`, so knowing
    someone's platform id never lets anyone act in their session.

    The study row is locked while the participant number is drawn, so concurrent
    starts get consecutive numbers (which the balanced order relies on) and a
    full study cannot be over-filled by a burst of arrivals.

    ``language`` is one of the study's languages (see
    :func:`studies.selectors.languages.language_choose`); any other reads the primary.
    """
    now = now or timezone.now()
    design = _design(study)
    with transaction.atomic():
        study = Study.objects.select_for_update().get(pk=study.pk)
        if not preview:
            existing = session_find(study=study, identity=identity)
            if existing is not None:
                return _resume(existing, proof, token)
            reason = study_unavailable_reason(study, now=now)
            if reason is not None:
                error = StudyFull if reason.code == "full" else StudyUnavailable
                raise error(reason.message, reason=reason.code)
        is_test = preview or study.status == Study.Status.PILOT
        if is_test:
            study.test_counter += 1
            number = study.test_counter
        else:
            study.live_counter += 1
            number = study.live_counter
        study.save(update_fields=["test_counter" if is_test else "live_counter"])

        session = ParticipantSession(
            study=study,
            number=number,
            is_pilot=study.status == Study.Status.PILOT and not preview,
            is_preview=preview,
            platform=identity.platform,
            external_id="" if preview else identity.external_id,
            platform_params={} if preview else identity.params,
            created_at=now,
            consented_at=now,
            deadline=now + timedelta(minutes=study.time_limit_minutes),
            user_agent=user_agent[:300],
            language=language if language in study.languages else study.language,
        )
        if token and not ParticipantSession.objects.filter(token=token).exists():
            session.token = token  # (taken: the form was sent again with another id)
        trials, order = _build_trials(study=study, design=design, session=session, number=number)
        session.order = order
        session.trial_count = len(trials)
        try:
            with transaction.atomic():
                session.save()
        except IntegrityError:
            # Another request with the same platform id won the race between our
            # lookup and insert (possible only outside PostgreSQL's row lock, e.g.
            # SQLite): the participant already has a session, so resume it.
            existing = session_find(study=study, identity=identity)
            if existing is None:
                raise
            return _resume(existing, proof, token)
        Trial.objects.bulk_create(trials, batch_size=500)
    token_language_remember(session.token, session.language)
    return StartResult(session, resumed=False)


def session_decline(*, study: Study, token: str = "", now=None) -> ParticipantSession:
    """Record that someone declined consent; nothing else about them is kept.

    Only while the study takes participants: a decline on a draft (anyone can post one
    to a guessed slug) would count before the study opened.
    """
    now = now or timezone.now()
    reason = study_unavailable_reason(study, now=now)
    if reason is not None:
        error = StudyFull if reason.code == "full" else StudyUnavailable
        raise error(reason.message, reason=reason.code)
    if token:
        # The same consent form sent twice declines once (start_tokens).
        repeat = ParticipantSession.objects.filter(token=token).first()
        if repeat is not None:
            if repeat.study_id == study.pk and repeat.status == ParticipantSession.Status.DECLINED:
                return repeat
            token = ""
    return ParticipantSession.objects.create(
        **({"token": token} if token else {}),
        study=study,
        status=ParticipantSession.Status.DECLINED,
        is_pilot=study.status == Study.Status.PILOT,
        platform=study.platform,
        created_at=now,
        ended_at=now,
    )


def decline_take_back(*, study: Study, token: str) -> bool:
    """A browser that declined and then agreed: its decline no longer counts.

    A decline keeps nothing about the person, so only the browser that made it can
    name it (by the token it was given); the start that follows is the person's answer.
    """
    if not token:
        return False
    deleted, _ = ParticipantSession.objects.filter(
        study=study, token=token[:64], status=ParticipantSession.Status.DECLINED
    ).delete()
    return bool(deleted)
