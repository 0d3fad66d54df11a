"""The participant's pages before a session exists: the study link, consent, the device check.

See :mod:`studies.views.participant` for why these forms carry no CSRF token and why
only this browser's cookie, not a platform id, resumes a session.
"""

from __future__ import annotations

import secrets

from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from studies.models import ParticipantSession, Study
from studies.selectors.languages import study_in_language
from studies.selectors.study import (
    session_by_token,
    study_unavailable_reason,
)
from studies.services import sessions as svc
from studies.services.sessions import devices as svc_devices
from studies.services.sessions.devices import DeviceNotAllowed, device_check
from studies.services.sessions.start_tokens import start_token_issue, start_token_read
from studies.views.participant_base import (
    COOKIE_AGE,
    cookie_name,
    cookie_token,
    declined_cookie_name,
    entry_language,
    entry_params,
    message_page,
    participant_page,
    shown_study,
    speak,
    study_or_404,
    study_time_statement,
    withdrawn_page,
)


def _resumable(request, study: Study, identity, form_token: str = "") -> ParticipantSession | None:
    """The session this browser started, or :class:`AlreadyStarted` for someone else's id.

    Only the cookie set by the browser that started a session proves it is theirs (or
    the consent form that started it, sent again: ``form_token``, see start_tokens):
    the platform id in the link proves nothing, since anyone can type it.
    """
    token = cookie_token(request, study)
    if identity.external_id:
        existing = svc.session_find(study=study, identity=identity)
        if existing is None:
            return None
        proofs = [t for t in (token, form_token) if t]
        if not any(secrets.compare_digest(t.encode(), existing.token.encode()) for t in proofs):
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
    return message_page(
        request, _("Please use a computer or a tablet"), text, status=200, study=study
    )


def _already_started(request, study: Study, exc: svc.AlreadyStarted):
    # Nothing on this page touches the existing session (no token, no link to it) or
    # tells how it went: the same page for every id that already took part.
    return message_page(request, str(exc.heading), exc.message, status=409, study=study)


def _link_problem(request, study: Study, problem: svc.LinkProblem):
    return message_page(
        request, _("This link needs a little fix"), problem.message, status=400, study=study
    )


def _arrive(request, study: Study, params, form_token: str = ""):
    """(identity, the session this browser started or None, None), or (None, None, the page
    refusing): the checks the study link and consent both run first, in this order.
    """
    try:
        identity = svc.identity_from_params(study.platform, params)
    except svc.LinkProblem as problem:
        return None, None, _link_problem(request, study, problem)
    if refused := _device_refused(request, study):
        return None, None, refused
    try:
        return identity, _resumable(request, study, identity, form_token), None
    except svc.AlreadyStarted as exc:
        return None, None, _already_started(request, study, exc)


def _study_in_chosen_language(request, slug: str, source) -> tuple[Study, str]:
    """The study with its texts in the language this visitor sees, and that language.

    The copy is for reading only: writes take the study by its id.
    """
    study = study_or_404(slug)
    language = entry_language(request, study, source)
    speak(language)
    return study_in_language(study, language), language


@participant_page
@require_GET
def welcome(request, slug: str):
    """The study link. Viewing it never starts anything (link scanners open links too)."""
    study, language = _study_in_chosen_language(request, slug, request.GET)
    _, existing, refusal = _arrive(request, study, request.GET)
    if refusal is not None:
        return refusal
    if existing is not None:
        speak(existing.language or language)
        if existing.status == ParticipantSession.Status.WITHDRAWN:
            return withdrawn_page(request, existing, shown_study(existing))
        context = {"study": shown_study(existing), "existing": existing}
        return render(request, "participate/welcome.html", context)
    reason = study_unavailable_reason(study)
    if reason is not None:
        return message_page(request, reason.heading, reason.message, study=study)
    params = entry_params(study, svc.link_params(study.platform, request.GET), language)
    context = {"study": study, "params": params, "time_statement": study_time_statement(study)}
    return render(request, "participate/welcome.html", context)


@participant_page
@require_http_methods(["GET", "POST"])
def consent(request, slug: str):
    source = request.POST if request.method == "POST" else request.GET
    study, language = _study_in_chosen_language(request, slug, source)
    start = start_token_read(request.POST.get("start", ""), study.pk)
    identity, existing, refusal = _arrive(request, study, source, start)
    if refusal is not None:
        return refusal
    if existing is not None:
        return _to_session(request, study, existing)
    if request.method == "GET" or request.POST.get("choice") not in ("agree", "decline"):
        reason = study_unavailable_reason(study)
        if reason is not None:
            return message_page(request, reason.heading, reason.message, study=study)
        params = entry_params(study, svc.link_params(study.platform, source), language)
        error = _("Please choose whether you agree.") if request.method == "POST" else ""
        context = {
            "study": study,
            "params": params,
            "error": error,
            "time_statement": study_time_statement(study),
            "start_token": start_token_issue(study.pk),
        }
        return render(request, "participate/consent.html", context)
    try:
        svc.arrival_check(request=request, study=study)
    except svc.TooManyArrivals as exc:
        response = message_page(request, exc.heading, exc.message, status=429, study=study)
        response["Retry-After"] = str(exc.retry_after)
        return response
    if request.POST["choice"] == "decline":
        try:
            declined = svc.session_decline(study=study, token=start)
        except svc.StudyUnavailable as exc:  # and StudyFull: nothing to decline
            return message_page(request, exc.heading, exc.message, study=study)
        response = redirect(
            reverse("participate:declined", args=[study.slug]) + f"?lang={language}"
        )
        # Only this browser can later say it changed its mind (the decline names no one).
        _remember(request, response, declined_cookie_name(study), declined.token)
        return response
    try:
        result = svc.session_start(
            study=study,
            identity=identity,
            proof=cookie_token(request, study),
            user_agent=request.META.get("HTTP_USER_AGENT", ""),
            language=language,
            token=start,
        )
    except svc.AlreadyStarted as exc:
        return _already_started(request, study, exc)
    except svc.StudyUnavailable as exc:
        return message_page(request, exc.heading, exc.message, study=study)
    response = _to_session(request, study, result.session)
    if svc.decline_take_back(
        study=study, token=request.COOKIES.get(declined_cookie_name(study), "")
    ):
        response.delete_cookie(declined_cookie_name(study), path="/s/")
    return response


def _to_session(request, study: Study, session: ParticipantSession):
    """On to the session, with the cookie that lets this browser come back to it."""
    response = redirect("participate:session", token=session.token)
    _remember(request, response, cookie_name(study), session.token)
    return response


def _remember(request, response, name: str, token: str) -> None:
    """A cookie only the participant pages read (under /s/), never readable by scripts."""
    response.set_cookie(
        name,
        token,
        max_age=COOKIE_AGE,
        path="/s/",
        httponly=True,
        samesite="Lax",
        secure=request.is_secure(),
    )


@participant_page
@require_GET
def device(request, slug: str):
    """Where device_check.js sends a phone that the study does not allow."""
    study, _language = _study_in_chosen_language(request, slug, request.GET)
    if study.allows_phones:
        return redirect("participate:welcome", slug=study.slug)
    return _device_page(request, study, svc_devices.DEVICE_MESSAGE)


@participant_page
@require_GET
def declined(request, slug: str):
    study, _language = _study_in_chosen_language(request, slug, request.GET)
    return message_page(
        request,
        _("Thank you"),
        _(
            "You chose not to take part. Nothing about you was recorded except that you "
            "declined. You can close this window now."
        ),
        study=study,
    )
