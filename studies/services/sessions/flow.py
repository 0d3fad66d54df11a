"""The steps of a session around the answers: instructions, shown trials, time limit,
withdrawal and the end of the study."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from studies.models import ParticipantSession, Response, Study, Trial
from studies.services.sessions.errors import NotFinished, SessionEnded

Status = ParticipantSession.Status


@dataclass(frozen=True)
class Completion:
    code: str
    redirect_url: str


def ended_message(session: ParticipantSession) -> str:
    if session.status == Status.TIMED_OUT:
        return _("The time limit for this study has been reached, so no more answers can be taken.")
    if session.status == Status.WITHDRAWN:
        return _("You have withdrawn from this study, so no more answers can be taken.")
    if session.status == Status.COMPLETED:
        return _("You have already answered every page. Thank you!")
    if session.status == Status.DECLINED:
        return _("You did not consent to this study.")
    if session.status == Status.ABANDONED:
        return _("The researcher closed this session so that you can start the study again.")
    return _("This session has ended.")


def session_expire(*, session: ParticipantSession, now=None) -> bool:
    """End an overdue session as timed out. Returns whether this call ended it."""
    now = now or timezone.now()
    changed = ParticipantSession.objects.filter(
        pk=session.pk, status=Status.IN_PROGRESS, deadline__lt=now
    ).update(status=Status.TIMED_OUT, ended_at=now)
    if changed:
        session.status = Status.TIMED_OUT
        session.ended_at = now
    return bool(changed)


def sessions_expire_overdue(*, study: Study | None = None, now=None) -> int:
    """Time out every session past its deadline (the pages do it one at a time as they are hit)."""
    now = now or timezone.now()
    sessions = ParticipantSession.objects.filter(status=Status.IN_PROGRESS, deadline__lt=now)
    if study is not None:
        sessions = sessions.filter(study=study)
    return sessions.update(status=Status.TIMED_OUT, ended_at=now)


def session_begin(*, session: ParticipantSession, now=None) -> None:
    """The participant read the instructions and starts the trials.

    The first trial is marked shown here, as every later one is by the answer before
    it, so the page that shows a trial writes nothing.
    """
    if session.instructions_done_at is None:
        now = now or timezone.now()
        with transaction.atomic():
            begun = ParticipantSession.objects.filter(
                pk=session.pk, instructions_done_at__isnull=True
            ).update(instructions_done_at=now)
            if begun:
                Trial.objects.filter(
                    session_id=session.pk, position=session.current_position, shown_at__isnull=True
                ).update(shown_at=now)
        session.instructions_done_at = now


def trial_mark_shown(*, trial: Trial, now=None) -> None:
    """Record when a trial was first shown; the server-side response time starts here.

    The answer before a trial (or the end of the instructions) marks it; a page view
    calls this only for a trial nothing marked (a JSON client that skipped ``begin``).
    """
    if trial.shown_at is None:
        now = now or timezone.now()
        Trial.objects.filter(pk=trial.pk, shown_at__isnull=True).update(shown_at=now)
        trial.shown_at = now


def completion_for(session: ParticipantSession) -> Completion:
    study = session.study
    code = study.completion_code
    url = ""
    if study.completion_url and not session.is_preview:
        url = study.completion_url.replace("{code}", quote(code, safe="")).replace(
            "{pid}", quote(session.external_id, safe="")
        )
    return Completion(code=code, redirect_url=url)


def session_finish(*, session: ParticipantSession, now=None) -> Completion:
    """The participant read the debrief; give them their code or where to go next."""
    if session.status != Status.COMPLETED:
        if session.status == Status.IN_PROGRESS:
            raise NotFinished(
                _("Please answer every page first."),
                answered=session.current_position,
                total=session.trial_count,
            )
        raise SessionEnded(ended_message(session), status=session.status)
    if session.debriefed_at is None:
        now = now or timezone.now()
        ParticipantSession.objects.filter(pk=session.pk, debriefed_at__isnull=True).update(
            debriefed_at=now
        )
        session.debriefed_at = now
    return completion_for(session)


def session_withdraw(*, token: str, now=None) -> ParticipantSession:
    """Withdraw: answers are deleted unless the study's consent says they are kept."""
    now = now or timezone.now()
    with transaction.atomic():
        session = (
            ParticipantSession.objects.select_for_update(of=("self",))
            .select_related("study")
            .get(token=token)
        )
        if session.status == Status.WITHDRAWN:
            return session
        if session.status in (Status.DECLINED, Status.ABANDONED):
            # An abandoned session's id is someone's new session now; it stays as it was.
            raise SessionEnded(ended_message(session), status=session.status)
        fields = ["status", "ended_at"]
        if not session.study.keep_answers_on_withdrawal:
            Response.objects.filter(session=session).delete()
            session.answers_deleted = True
            session.attention_failures = 0
            fields += ["answers_deleted", "attention_failures"]
        session.status = Status.WITHDRAWN
        session.ended_at = now
        session.save(update_fields=fields)
    return session
