"""What every participant page shares: headers and body limit, the calm error page, lookups.

The participant's pages live in :mod:`studies.views.participant_entry` (the study link,
consent, device check) and :mod:`studies.views.participant` (the session itself).
"""

from __future__ import annotations

from functools import wraps

from django.http import Http404
from django.shortcuts import redirect, render
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt

from core.languages import link_language, request_language, speaking
from core.views import participant_link_broken
from studies.models import ParticipantSession, Study
from studies.selectors.languages import language_choose, session_language, study_in_language
from studies.selectors.study import (
    session_by_token,
)
from studies.selectors.timing import study_expected_minutes, time_statement
from studies.services.sessions.platform import wording

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
                    "heading": _("That was too much to send"),
                    "text": _(
                        "Your answer could not be received. "
                        "Please go back and give a shorter answer."
                    ),
                },
                status=413,
            )
        else:
            try:
                # The page speaks the participant's language (see speak()) until it is
                # done, and so does the refusal page if the view raises one.
                # Until the view knows the study or session, the link's or browser's.
                with speaking(request, link_language(request)):
                    response = view(request, *args, **kwargs)
            except Http404:
                # A mistyped or tampered link: a calm page, not the researchers' 404,
                # in the language the view had reached.
                with translation.override(request_language(request)):
                    response = participant_link_broken(request)
            if response.status_code == 405 and request.method in ("GET", "HEAD"):
                # An address that only takes a form's answer, opened again (from the
                # history, say): the session's own page says where the participant is.
                token = kwargs.get("token")
                if token:
                    response = redirect("participate:session", token)
        # The token is in the address: never leak it to other sites, never cache a trial.
        response["Referrer-Policy"] = "no-referrer"
        response["X-Robots-Tag"] = "noindex, nofollow"
        return response

    return csrf_exempt(never_cache(wrapped))


def message_page(request, heading: str, text: str, *, status: int = 200, study=None, **extra):
    context = {"heading": heading, "text": text, "study": study, **extra}
    return render(request, "participate/message.html", context, status=status)


def withdrawn_page(request, session: ParticipantSession, study: Study):
    """What a participant who withdrew reads, wherever they arrive: the session's page or
    the study link again (not "welcome back", as if they had taken part)."""
    kept = not session.answers_deleted and session.current_position > 0
    text = (
        _(
            "You have withdrawn from this study. As the consent form said, the answers you "
            "gave are kept. Thank you for your time."
        )
        if kept
        else _(
            "You have withdrawn from this study and your answers were deleted. "
            "Thank you for your time."
        )
    )
    # Their platform still counts them in until they act there (return it on Prolific...).
    next_step = wording(session.platform).after_withdrawal
    return message_page(request, _("You have withdrawn"), text, study=study, next_step=next_step)


def study_or_404(slug: str) -> Study:
    study = Study.objects.filter(slug=slug).first()
    if study is None:
        raise Http404("No such study.")
    return study


def speak(language: str) -> None:
    """Show the rest of this participant page in ``language``; participant_page restores
    the language before it when the page is done."""
    translation.activate(language)


def session_or_404(token: str) -> ParticipantSession:
    """The session, with the page speaking its language from here on."""
    session = session_by_token(token)
    if session is None or session.status == Status.DECLINED:
        raise Http404("No such session.")
    speak(session_language(session))
    return session


def shown_study(session: ParticipantSession) -> Study:
    """The session's study with the researcher's texts in the session's language."""
    return study_in_language(session.study, session_language(session))


def entry_language(request, study: Study, source) -> str:
    """Before a session exists: the link's ``lang``, else the browser's, else the primary."""
    return language_choose(
        study,
        asked=source.get("lang", ""),
        accept_language=request.META.get("HTTP_ACCEPT_LANGUAGE", ""),
    )


def entry_params(study: Study, params: dict, language: str) -> dict:
    """The link's parameters to carry to the next page, with the language chosen."""
    return {**params, "lang": language} if len(study.languages) > 1 else params


def cookie_name(study: Study) -> str:
    return f"{COOKIE_PREFIX}{study.pk}"


def declined_cookie_name(study: Study) -> str:
    """Names this browser's decline, so that agreeing after it takes the decline back."""
    return f"{COOKIE_PREFIX}{study.pk}-declined"


def cookie_token(request, study: Study) -> str:
    return request.COOKIES.get(cookie_name(study), "")[:64]


def study_time_statement(study: Study) -> str:
    return time_statement(expected=study_expected_minutes(study), limit=study.time_limit_minutes)
