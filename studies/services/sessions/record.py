"""Storing a participant's answer: once, for the current trial only, checked for its type."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, replace

from django.db import IntegrityError, transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from core.db.compiled import CompiledQuery
from studies import answer_types, answers
from studies.answer_types import get_type
from studies.answers import quantities
from studies.models import ParticipantSession, Response, Study, Trial
from studies.selectors.languages import session_language
from studies.selectors.study import (
    participant_sessions,
    participant_trials_with_session,
    trial_current,
    trial_spec,
)
from studies.services.results.schedule import results_after_completion
from studies.services.sessions.errors import (
    AlreadyAnswered,
    AnswerInvalid,
    NotCurrentTrial,
    SessionEnded,
)
from studies.services.sessions.flow import ended_message, session_expire, trial_mark_shown
from studies.services.sessions.write import answer_write
from studies.services.study.stopping import stop_check_after_completion

logger = logging.getLogger(__name__)

MAX_ANSWER_CHARS = 1000


@dataclass(frozen=True)
class RecordResult:
    session: ParticipantSession
    response: Response
    duplicate: bool
    # The trial that is current after this answer, already marked as shown, when
    # the caller asked for it (the JSON flow sends it with the answer's receipt).
    next_trial: Trial | None = None
    # The trial after that, whose chart a client may fetch while its participant
    # answers the next one (fresh answers only).
    after_next: Trial | None = None

    @property
    def completed(self) -> bool:
        return self.session.status == ParticipantSession.Status.COMPLETED


def _raw_text(answer) -> str:
    if isinstance(answer, str):
        return answer.strip()
    return json.dumps(answer, ensure_ascii=False)


def read_answer(trial: Trial, answer, language: str = "en") -> tuple[object, bool | None]:
    """(the value stored, correct) for an answer, or :class:`AnswerInvalid` with a friendly message.

    ``language`` is the session's: numbers are read the way it writes them ("3,5" in German).
    """
    # Its messages too: the participant reads them in the session's language.
    with translation.override(language):
        return _read_answer(trial, answer, language)


def _read_answer(trial: Trial, answer, language: str) -> tuple[object, bool | None]:
    answer_type, options, key, tolerance = trial_spec(trial)
    kind = get_type(answer_type)
    if answer is None or (isinstance(answer, str) and not answer.strip()):
        raise AnswerInvalid(str(kind.empty_message))
    if len(_raw_text(answer)) > MAX_ANSWER_CHARS:
        raise AnswerInvalid(_("That answer is too long. Please give a short answer."))
    with quantities.numbers_written_in(language):
        try:
            value = kind.normalize_answer(answer, options=options)
            kind.validate_answer(value, options)
        except answers.AnswerFormatError as exc:
            raise AnswerInvalid(exc.message) from None
        try:
            correct = answer_types.check_answer(
                answer_type, answer, key, options=options, tolerance=tolerance
            )
        except answers.KeyFormatError:
            # The researcher's key is broken; the participant's answer is still kept.
            logger.warning("Unreadable answer key for trial %s", trial.pk)
            correct = None
    return value, correct


def answer_error(trial: Trial, value) -> float | None:
    """The stored answer's absolute distance from the key, for types that measure one."""
    answer_type, _options, key, _tolerance = trial_spec(trial)
    return get_type(answer_type).answer_error(value, key)


def check_given(answer_type: str, interactions: int | None, *, required: bool = False) -> None:
    """Refuse an answer its client reports as given without any interaction.

    A ranking shown in some order and sent as it was would record that order as the
    participant's; the form starts unranked, and a client that reports how the
    answer was given must report at least one action. ``required`` (the JSON flow)
    makes the report itself mandatory for rankings; a browser without JavaScript
    reports nothing, and its empty rank selects already need the participant.
    """
    kind = get_type(answer_type)
    if interactions == 0 or (kind.needs_interaction and required and interactions is None):
        raise AnswerInvalid(
            str(kind.no_interaction_message), errors={"interactions": [kind.no_interaction_detail]}
        )


def _same_answer(response: Response, answer, idempotency_key: str) -> bool:
    if idempotency_key and response.idempotency_key:
        return idempotency_key == response.idempotency_key
    return response.raw_answer == _raw_text(answer)


def _elapsed_ms(start, end) -> int | None:
    if start is None:
        return None
    return max(0, int((end - start).total_seconds() * 1000))


def response_record(
    *,
    token: str,
    position: int,
    answer,
    client_ms: int | None = None,
    interactions: int | None = None,
    first_interaction_ms: int | None = None,
    interaction_required: bool = False,
    idempotency_key: str = "",
    with_next: bool = False,
    now=None,
) -> RecordResult:
    """Store the answer to the trial at ``position``, which must be the current one.

    The usual answer takes two statements and no transaction (:func:`_record_fresh`):
    a read of the answered trial, the two after it, the session and the study, then one
    write, guarded by the session's row, that stores the response, advances the session
    and marks the next trial shown, so the page that shows it writes nothing. Anything
    else (a repeat, a refusal, a guard that failed) takes one short transaction: the same
    read locking the session row, so rapid-fire or parallel submits of one participant
    run one after the other (the unique trial of a response makes a second answer
    impossible even without the lock), then the same write. ``answer`` may be a callable
    taking the trial (an HTML form needs the trial's options to be read).

    A repeat of an answer already stored (same idempotency key, or the same text
    when no key is sent) returns the stored response with ``duplicate=True``
    instead of an error, so retries after a lost connection are harmless. With
    ``with_next`` the result carries the next trial (and the one after it, whose
    chart the client can fetch ahead).

    ``client_ms`` (time on the trial by the client's clock), ``interactions`` and
    ``first_interaction_ms`` record how the answer was given; see :func:`check_given`.
    """
    now = now or timezone.now()
    given = Given(client_ms, interactions, first_interaction_ms, interaction_required)
    # The same answer for both paths: the usual one first, the locked one if it declined.
    answering = {
        "token": token, "position": position, "answer": answer, "given": given,
        "idempotency_key": idempotency_key, "now": now,
    }  # fmt: skip
    fresh = _record_fresh(**answering)
    if fresh is not None:
        return fresh
    try:
        with transaction.atomic():
            result = _record_locked(**answering)
            if isinstance(result, RecordResult) and with_next and result.duplicate:
                result = replace(result, next_trial=_next_after_repeat(result.session))
    except IntegrityError:
        # Reached only without the row lock (SQLite) or with a key reused for
        # another trial; either way nothing is stored twice.
        raise AlreadyAnswered(
            _("This answer was already received. Please continue with the next chart."),
        ) from None
    if isinstance(result, ParticipantSession):
        # Overdue: ended outside the transaction above, which stored nothing.
        session_expire(session=result, now=now)
        raise SessionEnded(ended_message(result), status=result.status)
    return result


def _next_after_repeat(session: ParticipantSession) -> Trial | None:
    # A repeat stores nothing; its client gets the trial that is current now, already
    # marked shown by the answer that moved the session past it.
    if session.status != ParticipantSession.Status.IN_PROGRESS:
        return None
    trial = trial_current(session)
    if trial is not None:
        trial_mark_shown(trial=trial)
    return trial


@dataclass(frozen=True)
class Given:
    """How the client says the answer was given."""

    client_ms: int | None = None
    interactions: int | None = None
    first_interaction_ms: int | None = None
    required: bool = False


def _trials_at(*, locked: bool) -> CompiledQuery:
    """A session's trials at three positions, with the session and study; ``locked`` locks
    the session row. Compiled once: building this join's SQL cost more than running it
    (core/db/compiled.py)."""

    def build(token, first, second, third):
        trials = participant_trials_with_session()
        if locked:
            trials = trials.select_for_update(of=("session",))
        return trials.filter(session__token=token, position__in=(first, second, third)).order_by(
            "position"
        )

    return CompiledQuery(
        build, token="\x1fsample-token", first=1_000_001, second=1_000_002, third=1_000_003
    )


_LOCKED_TRIALS = _trials_at(locked=True)
_TRIALS = _trials_at(locked=False)  # the usual answer's (_record_fresh)


def _locked_trials(token: str, position: int) -> tuple[ParticipantSession, list[Trial]]:
    """The session (locked) and its trials at ``position`` and the two after it.

    One query in the usual case. Only the session is locked: trials never change but
    for their first-shown stamp, written once, where it is still empty. The trial rows
    are those of the query's snapshot while the session row is the latest (PostgreSQL
    rechecks a locked row after waiting), which is why a trial the session has moved
    past is looked at again (:func:`_repeat`) rather than trusted.
    """
    trials = []
    if position >= 0:
        trials = _LOCKED_TRIALS(
            token=token, first=position, second=position + 1, third=position + 2
        )
    if trials:
        return trials[0].session, trials
    # An unknown token (DoesNotExist) or a position the session does not have.
    return participant_sessions().select_for_update(of=("self",)).get(token=token), []


def _resolve(answer, trial: Trial):
    return answer(trial) if callable(answer) else answer


def _repeat(trial: Trial, session, answer, idempotency_key: str) -> RecordResult:
    existing = Response.objects.filter(trial=trial).first()
    if existing is not None:
        if idempotency_key and existing.idempotency_key:
            same = idempotency_key == existing.idempotency_key
        else:
            try:
                same = _same_answer(existing, _resolve(answer, trial), idempotency_key)
            except AnswerInvalid:
                same = False
        if same:
            return RecordResult(session, existing, duplicate=True)
        raise AlreadyAnswered(
            _(
                "This chart already has your answer, and answers cannot be changed. "
                "Please continue with the next one."
            ),
            current=session.current_position,
        )
    # No answer stored although the session is past it: its answers were deleted.
    raise SessionEnded(ended_message(session), status=session.status)


def _record_locked(
    *, token, position, answer, given: Given, idempotency_key, now
) -> RecordResult | ParticipantSession:
    session, trials = _locked_trials(token, position)
    if session.status == ParticipantSession.Status.DECLINED:
        raise ParticipantSession.DoesNotExist
    if not trials or position >= session.trial_count or position > session.current_position:
        raise NotCurrentTrial(
            _("That is not the chart you are on. Please continue with the one shown now."),
            current=session.current_position,
        )
    trial = trials[0]
    if position < session.current_position:
        return _repeat(trial, session, answer, idempotency_key)
    if session.status != ParticipantSession.Status.IN_PROGRESS:
        raise SessionEnded(ended_message(session), status=session.status)
    if session.is_overdue(now):
        return session
    if _closed(session):
        raise SessionEnded(_("This study has closed. Thank you for taking part."), status="closed")
    return _store(session, trials, answer, given, idempotency_key, now)


def _closed(session: ParticipantSession) -> bool:
    return not session.is_preview and session.study.status in (
        Study.Status.CLOSED,
        Study.Status.DRAFT,
    )


def _record_fresh(*, token, position, answer, given: Given, idempotency_key, now):
    """The usual answer (to the current trial of a session in progress, in time, of an open
    study) stored without a transaction or a lock, or None: then nothing was written and
    :func:`_record_locked` decides, as for everything unusual.

    On PostgreSQL, outside a caller's transaction and for a study without a relaxed commit,
    two statements instead of four (``BEGIN``, the locked read, the write, ``COMMIT``): the
    session and trials are read as the locked read reads them, the answer is decided on
    what was read, and the write moves the session only if its row still holds what the
    decision was taken on (:func:`answer_write`'s guard), storing the response in the same
    statement or not at all. Another request that moved the session in between (a retry
    of this answer, a second tab) makes the guard fail, and the locked path then answers
    it as it always has (a repeat, a refusal).
    """
    if position < 0:
        return None
    trials = _TRIALS(token=token, first=position, second=position + 1, third=position + 2)
    if not trials:
        return None
    session = trials[0].session
    if (
        position != session.current_position
        or position >= session.trial_count
        or session.status != ParticipantSession.Status.IN_PROGRESS
        or session.is_overdue(now)
        or _closed(session)
    ):
        return None
    try:
        return _store(session, trials, answer, given, idempotency_key, now, guarded=True)
    except (AnswerInvalid, IntegrityError):
        return None  # refused or not stored: the locked path says so in its own words


def _store(
    session, trials, answer, given: Given, idempotency_key, now, *, guarded=False
) -> RecordResult | None:
    """Read the answer to ``trials[0]``, store it and move the session on. With ``guarded``,
    only if the session's row is still as read (None otherwise, with nothing written)."""
    trial = trials[0]
    check_given(trial_spec(trial)[0], given.interactions, required=given.required)
    answer = _resolve(answer, trial)
    value, correct = read_answer(trial, answer, session_language(session))
    response = Response(
        trial=trial,
        session=session,
        position=trial.position,
        chart_id=trial.chart_id,
        attention_check_id=trial.attention_check_id,
        raw_answer=_raw_text(answer),
        value=value,
        correct=correct,
        abs_error=answer_error(trial, value),
        shown_at=trial.shown_at,
        answered_at=now,
        server_ms=_elapsed_ms(trial.shown_at, now),
        client_ms=given.client_ms,
        interactions=given.interactions,
        first_interaction_ms=given.first_interaction_ms,
        idempotency_key=idempotency_key or "",
    )
    next_trial = trials[1] if len(trials) > 1 else None
    # What the answer's effect was decided on: the fields it changes, as read.
    guard = {name: getattr(session, name) for name in ADVANCED_FIELDS} if guarded else None
    fields = _advance(session, trial, correct, now)
    if session.status != ParticipantSession.Status.IN_PROGRESS:
        next_trial = None
    stored = answer_write(
        response=response,
        session=session,
        fields=fields,
        next_trial=next_trial,
        now=now,
        guard=guard,
    )
    if not stored:
        return None
    if session.status == ParticipantSession.Status.COMPLETED:
        # After the write: these read the completed session's answers.
        results_after_completion(session)
        stop_check_after_completion(session)
    return RecordResult(
        session,
        response,
        duplicate=False,
        next_trial=next_trial,
        after_next=trials[2] if len(trials) > 2 else None,
    )


# Every field _advance may change: status too, so that a session ended meanwhile (withdrawn,
# timed out, excluded) is never moved on by an answer read before it ended.
ADVANCED_FIELDS = ("current_position", "attention_failures", "status", "completed_at")


def _advance(session, trial: Trial, correct, now) -> list[str]:
    """Move the session past ``trial``; the fields to save."""
    session.current_position = trial.position + 1
    fields = ["current_position"]
    if trial.is_attention and correct is False:
        session.attention_failures += 1
        fields.append("attention_failures")
    if session.current_position >= session.trial_count:
        session.status = ParticipantSession.Status.COMPLETED
        session.completed_at = now
        fields += ["status", "completed_at"]
    return fields
