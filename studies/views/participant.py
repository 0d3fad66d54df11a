"""The participant's pages: welcome, consent, instructions, one trial per page, debrief.

No account: after consent, the session token in the address is the participant's
credential, and the server holds where they are, so a reload resumes. Opening the
study link again resumes only in the browser that started (its cookie holds the
token): a platform id alone is no proof, since anyone can type one. Forms carry no
CSRF token on purpose: nothing here acts on ambient cookies (the token is in the
path and unguessable; the cookie only finds the session again), and participants
on locked-down lab machines often block cookies.
"""

from __future__ import annotations

import contextlib
import secrets
from functools import wraps

from django.core.cache import cache
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from studies.answer_types import FormAnswerError, get_type
from studies.models import ParticipantSession, Study
from studies.selectors.study import (
    session_by_token,
    study_unavailable_reason,
    trial_current,
    trial_display,
)
from studies.selectors.timing import study_expected_minutes, time_left_statement, time_statement
from studies.services import sessions as svc
from studies.services.sessions import devices as svc_devices
from studies.services.sessions.devices import DeviceNotAllowed, device_check

MAX_BODY_BYTES = 64 * 1024
COOKIE_PREFIX = "chartroom_s"
COOKIE_AGE = 7 * 24 * 3600
REFUSED_TTL = 15 * 60  # how long a refused answer waits for its trial page to show it
Status = ParticipantSession.Status


def participant_page(view):
    """Headers every participant page needs, and a small request body limit."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if length > MAX_BODY_BYTES:
            response = render(
                request,
                "participate/message.html",
                {
                    "heading": "That was too much to send",
                    "text": "Your answer could not be received. Please go back and give a shorter answer.",
                },
                status=413,
            )
        else:
            try:
                response = view(request, *args, **kwargs)
            except Http404:
                # A mistyped or tampered link: a calm page, not the researchers' 404.
                response = _message(
                    request,
                    "This link does not work",
                    "The address may be incomplete. Please open the study again from the "
                    "page or message that sent you here.",
                    status=404,
                )
        # The token is in the address: never leak it to other sites, never cache a trial.
        response["Referrer-Policy"] = "no-referrer"
        response["X-Robots-Tag"] = "noindex, nofollow"
        return response

    return csrf_exempt(never_cache(wrapped))


def _message(request, heading: str, text: str, *, status: int = 200, study=None, **extra):
    context = {"heading": heading, "text": text, "study": study, **extra}
    return render(request, "participate/message.html", context, status=status)


def _study_or_404(slug: str) -> Study:
    study = Study.objects.filter(slug=slug).first()
    if study is None:
        raise Http404("No such study.")
    return study


def _session_or_404(token: str) -> ParticipantSession:
    session = session_by_token(token)
    if session is None or session.status == Status.DECLINED:
        raise Http404("No such session.")
    return session


def _cookie_name(study: Study) -> str:
    return f"{COOKIE_PREFIX}{study.pk}"


def _cookie_token(request, study: Study) -> str:
    return request.COOKIES.get(_cookie_name(study), "")[:64]


def _resumable(request, study: Study, identity) -> ParticipantSession | None:
    """The session this browser started, or :class:`AlreadyStarted` for someone else's id.

    Only the cookie set by the browser that started a session proves it is theirs:
    the platform id in the link proves nothing, since anyone can type it.
    """
    token = _cookie_token(request, study)
    if identity.external_id:
        existing = svc.session_find(study=study, identity=identity)
        if existing is None:
            return None
        if not (token and secrets.compare_digest(token.encode(), existing.token.encode())):
            raise svc.AlreadyStarted(svc.already_started_message(study.platform))
        return existing
    session = session_by_token(token) if token else None
    if session is not None and session.study_id == study.pk and not session.is_preview:
        return session
    return None


def _device_refused(request, study: Study):
    """The phone page, or None when this device may take the study. Nothing is stored."""
    try:
        device_check(study=study, meta=request.META)
    except DeviceNotAllowed as exc:
        return _device_page(request, study, exc.message)
    return None


def _device_page(request, study: Study, text: str):
    return _message(request, "Please use a computer or a tablet", text, status=200, study=study)


def _already_started(request, study: Study, exc: svc.AlreadyStarted):
    # Nothing on this page touches the existing session: no token, no link to it.
    return _message(
        request, "Please continue where you started", exc.message, status=409, study=study
    )


def _time(study: Study) -> str:
    return time_statement(expected=study_expected_minutes(study), limit=study.time_limit_minutes)


def _link_problem(request, study: Study, problem: svc.LinkProblem):
    return _message(
        request, "This link needs a little fix", problem.message, status=400, study=study
    )


# ------------------------------------------------------------------ before the session


@participant_page
@require_GET
def welcome(request, slug: str):
    """The study link. Viewing it never starts anything (link scanners open links too)."""
    study = _study_or_404(slug)
    try:
        identity = svc.identity_from_params(study.platform, request.GET)
    except svc.LinkProblem as problem:
        return _link_problem(request, study, problem)
    if refused := _device_refused(request, study):
        return refused
    try:
        existing = _resumable(request, study, identity)
    except svc.AlreadyStarted as exc:
        return _already_started(request, study, exc)
    if existing is not None:
        return render(request, "participate/welcome.html", {"study": study, "existing": existing})
    reason = study_unavailable_reason(study)
    if reason is not None:
        return _message(request, reason.heading, reason.message, study=study)
    params = svc.link_params(study.platform, request.GET)
    context = {"study": study, "params": params, "time_statement": _time(study)}
    return render(request, "participate/welcome.html", context)


@participant_page
@require_http_methods(["GET", "POST"])
def consent(request, slug: str):
    study = _study_or_404(slug)
    source = request.POST if request.method == "POST" else request.GET
    try:
        identity = svc.identity_from_params(study.platform, source)
    except svc.LinkProblem as problem:
        return _link_problem(request, study, problem)
    if refused := _device_refused(request, study):
        return refused
    try:
        existing = _resumable(request, study, identity)
    except svc.AlreadyStarted as exc:
        return _already_started(request, study, exc)
    if existing is not None:
        return redirect("participate:session", token=existing.token)
    if request.method == "GET" or request.POST.get("choice") not in ("agree", "decline"):
        reason = study_unavailable_reason(study)
        if reason is not None:
            return _message(request, reason.heading, reason.message, study=study)
        params = svc.link_params(study.platform, source)
        error = "Please choose whether you agree." if request.method == "POST" else ""
        context = {"study": study, "params": params, "error": error, "time_statement": _time(study)}
        return render(request, "participate/consent.html", context)
    if request.POST["choice"] == "decline":
        svc.session_decline(study=study)
        return redirect("participate:declined", slug=study.slug)
    try:
        result = svc.session_start(
            study=study,
            identity=identity,
            proof=_cookie_token(request, study),
            user_agent=request.META.get("HTTP_USER_AGENT", ""),
        )
    except svc.AlreadyStarted as exc:
        return _already_started(request, study, exc)
    except svc.StudyUnavailable as exc:
        return _message(request, exc.heading, exc.message, study=study)
    response = redirect("participate:session", token=result.session.token)
    response.set_cookie(
        _cookie_name(study),
        result.session.token,
        max_age=COOKIE_AGE,
        path="/s/",
        httponly=True,
        samesite="Lax",
        secure=request.is_secure(),
    )
    return response


@participant_page
@require_GET
def device(request, slug: str):
    """Where device_check.js sends a phone that the study does not allow."""
    study = _study_or_404(slug)
    if study.allows_phones:
        return redirect("participate:welcome", slug=study.slug)
    return _device_page(request, study, svc_devices.DEVICE_MESSAGE)


@participant_page
@require_GET
def declined(request, slug: str):
    study = _study_or_404(slug)
    return _message(
        request,
        "Thank you",
        "You chose not to take part. Nothing about you was recorded except that you declined. "
        "You can close this window now.",
        study=study,
    )


# ------------------------------------------------------------------ the session


def _trial_context(session, trial, *, error: str = "", previous=None) -> dict:
    shown = trial_display(trial)
    previous = previous or {}
    # Rankings start unranked: no item has a place until the participant gives it one.
    ranks = previous.get("ranks") or {}
    items = [{"index": i, "text": text, "rank": ranks.get(i)} for i, text in shown.items]
    time_left = ""
    if session.deadline:
        remaining = max(0, int((session.deadline - timezone.now()).total_seconds() // 60))
        time_left = time_left_statement(
            minutes_left=remaining, limit=session.study.time_limit_minutes
        )
    return {
        "study": session.study,
        "session": session,
        "trial": trial,
        "number": trial.position + 1,
        "total": session.trial_count,
        "answer_type": shown.answer_type,
        # Each answer type draws its own input (studies.answer_types).
        "answer_template": get_type(shown.answer_type).participant_template,
        "prompt": shown.prompt,
        "image": shown.image,
        "width": shown.width,
        "height": shown.height,
        "alt": shown.alt,
        "options": list(enumerate(shown.options)),
        "items": items,
        "rank_choices": range(1, len(shown.options) + 1),
        "error": error,
        "previous": previous,
        "key": secrets.token_urlsafe(12),
        "time_left": time_left,
    }


def _ended_page(request, session: ParticipantSession):
    study = session.study
    if session.status == Status.COMPLETED:
        completion = svc.completion_for(session)
        return render(
            request,
            "participate/debrief.html",
            {
                "study": study,
                "session": session,
                "completion": completion,
                "thanks_in_text": "thank" in study.debrief_text.casefold(),
            },
        )
    if session.status == Status.WITHDRAWN:
        kept = not session.answers_deleted and session.current_position > 0
        text = (
            "You have withdrawn from this study. As the consent form said, the answers you gave "
            "are kept."
            if kept
            else "You have withdrawn from this study and your answers were deleted."
        )
        return _message(
            request, "You have withdrawn", text + " Thank you for your time.", study=study
        )
    if session.status == Status.TIMED_OUT:
        return _message(
            request,
            "The time limit has been reached",
            f"You had up to {study.time_limit_minutes} minutes for this study, so it has ended. "
            "Thank you for your time. If you think this is a mistake, please "
            f"{svc.wording(study.platform).contact}.",
            study=study,
        )
    if session.status == Status.ABANDONED:
        return _message(
            request,
            "This session was closed",
            "The researcher closed this session so that you can start over. "
            f"To start, please {svc.wording(study.platform).way_back}.",
            study=study,
        )
    raise Http404


def _closed(session: ParticipantSession) -> bool:
    return not session.is_preview and session.study.status in (
        Study.Status.CLOSED,
        Study.Status.DRAFT,
    )


@participant_page
@require_GET
def session_page(request, token: str):
    """Whatever the participant is at now: instructions, the current trial, or the end."""
    session = _session_or_404(token)
    if session.is_overdue():
        svc.session_expire(session=session)
    if session.status != Status.IN_PROGRESS:
        return _ended_page(request, session)
    if _closed(session):
        return _message(
            request,
            "This study has closed",
            "No more answers can be taken. Thank you for your time.",
            study=session.study,
        )
    if session.current_position == 0 and session.instructions_done_at is None:
        context = {
            "study": session.study,
            "session": session,
            "time_statement": _time(session.study),
        }
        return render(request, "participate/instructions.html", context)
    trial = trial_current(session)
    svc.trial_mark_shown(trial=trial)
    key = _refused_key(token, trial.position)
    refused = cache.get(key) or {}
    if refused:
        cache.delete(key)
    context = _trial_context(
        session, trial, error=refused.get("error", ""), previous=refused.get("previous")
    )
    return render(request, "participate/trial.html", context)


@participant_page
@require_POST
def begin(request, token: str):
    session = _session_or_404(token)
    if session.status == Status.IN_PROGRESS:
        svc.session_begin(session=session)
    return redirect("participate:session", token=token)


def _form_answer(answer_type: str, options: list, post) -> tuple[object, dict]:
    """The answer from the trial form, and what to show again if it is refused."""
    try:
        return get_type(answer_type).read_form(post, options)
    except FormAnswerError as exc:
        raise svc.AnswerInvalid(exc.message, previous=exc.previous) from None


def _client_ms(value: str) -> int | None:
    try:
        ms = int(float(value))
    except (TypeError, ValueError):
        return None
    return ms if 0 <= ms <= 24 * 3600 * 1000 else None


def _interactions(value: str) -> int | None:
    # Empty from a browser without JavaScript: nothing is known, so nothing is recorded.
    return int(value) if value.isdigit() and int(value) <= 100_000 else None


def _refused_key(token: str, position: int) -> str:
    return f"participate:refused:{token}:{position}"


@participant_page
@require_POST
def answer(request, token: str):
    """Store the answer; a refused one goes back to the trial page with its message (PRG)."""
    session = _session_or_404(token)
    try:
        position = int(request.POST.get("position", ""))
    except ValueError:
        return redirect("participate:session", token=token)
    trial = trial_current(session) if position == session.current_position else None
    given = {
        "interactions": _interactions(request.POST.get("interactions", "")),
        "first_ms": _client_ms(request.POST.get("first_interaction_ms")),
    }
    previous = {}
    try:
        if trial is None:
            # Not the current trial: the service decides whether it is a harmless repeat.
            value = request.POST.get("number") or request.POST.get("choice") or ""
        else:
            answer_type, options, _k, _t = svc.trial_spec(trial)
            value, previous = _form_answer(answer_type, options, request.POST)
        svc.response_record(
            token=token,
            position=position,
            answer=value,
            client_ms=_client_ms(request.POST.get("client_ms")),
            interactions=given["interactions"],
            first_interaction_ms=given["first_ms"],
            idempotency_key=request.POST.get("key", "")[:64],
        )
    except svc.AnswerInvalid as exc:
        if trial is not None:
            # Kept on the server, not in a cookie (lab machines often block them), and
            # shown once by the trial page, so a reload never posts the answer again.
            refused = {"error": exc.message, "previous": exc.extra.get("previous") or previous}
            refused["previous"].update(given)
            cache.set(_refused_key(token, position), refused, REFUSED_TTL)
    except (svc.AlreadyAnswered, svc.NotCurrentTrial, svc.SessionEnded):
        # A repeat, a stale tab or an ended session: the session page shows where things stand.
        pass
    return redirect("participate:session", token=token)


@participant_page
@require_POST
def finish(request, token: str):
    session = _session_or_404(token)
    try:
        completion = svc.session_finish(session=session)
    except svc.SessionError:
        return redirect("participate:session", token=token)
    if completion.redirect_url:
        return redirect(completion.redirect_url)
    return redirect("participate:session", token=token)


@participant_page
@require_http_methods(["GET", "POST"])
def withdraw(request, token: str):
    session = _session_or_404(token)
    if request.method == "POST":
        # An ended session cannot be withdrawn; the session page says how it ended.
        with contextlib.suppress(svc.SessionEnded):
            svc.session_withdraw(token=token)
        return redirect("participate:session", token=token)
    if session.status in (Status.WITHDRAWN, Status.ABANDONED):
        return redirect("participate:session", token=token)
    return render(
        request,
        "participate/withdraw.html",
        {
            "study": session.study,
            "session": session,
            "back": reverse("participate:session", args=[token]),
        },
    )
