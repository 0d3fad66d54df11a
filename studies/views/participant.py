"""The participant's pages in a session: instructions, one trial per page, debrief.

The pages before it (welcome, consent, device check) are in
:mod:`studies.views.participant_entry`.

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
import json
import secrets

from django.core.cache import cache
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from studies.answer_types import FormAnswerError, all_types, get_type
from studies.models import ParticipantSession, Study
from studies.selectors.languages import session_language, token_language
from studies.selectors.study import trial_current_by_token, trial_display, trial_image
from studies.selectors.timing import session_clock, time_left_texts
from studies.services import sessions as svc
from studies.views.participant_base import (
    REFUSED_TTL,
    Status,
    message_page,
    participant_page,
    session_or_404,
    shown_study,
    speak,
    study_time_statement,
    withdrawn_page,
)


def _trial_context(session, trial, *, error: str = "", previous=None) -> dict:
    shown = trial_display(trial, session)
    previous = previous or {}
    # Rankings start unranked: no item has a place until the participant gives it one.
    ranks = previous.get("ranks") or {}
    items = [{"index": i, "text": text, "rank": ranks.get(i)} for i, text in shown.items]
    return {
        "study": shown_study(session),
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
        # The clock, in words (kept without JavaScript) and figures (static/js/clock.js).
        "clock": session_clock(session),
        "clock_texts": json.dumps(time_left_texts(), ensure_ascii=False),
        # Every answer type's input, drawn once with one sample option, item and rank,
        # for static/js/trial_flow.js to fill with the next trial's (its texts stay here).
        "answer_templates": ANSWER_TEMPLATES,
        "sample": SAMPLE,
    }


ANSWER_TEMPLATES = [(kind.key, kind.participant_template) for kind in all_types()]
SAMPLE = {
    "options": [(0, "")],
    "items": [{"index": 0, "text": "", "rank": None}],
    "rank_choices": range(1, 2),
}


def _ended_page(request, session: ParticipantSession):
    study = shown_study(session)
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
        return withdrawn_page(request, session, study)
    if session.status == Status.TIMED_OUT:
        return message_page(
            request,
            _("The time limit has been reached"),
            ngettext(
                "You had up to %(limit)d minute for this study, so it has ended. Thank you for "
                "your time. If you think this is a mistake, please %(contact)s.",
                "You had up to %(limit)d minutes for this study, so it has ended. Thank you for "
                "your time. If you think this is a mistake, please %(contact)s.",
                study.time_limit_minutes,
            )
            % {
                "limit": study.time_limit_minutes,
                "contact": svc.wording(study.platform).contact,
            },
            study=study,
        )
    if session.status == Status.ABANDONED:
        return message_page(
            request,
            _("This session was closed"),
            _(
                "The researcher closed this session so that you can start over. "
                "To start, please %(way_back)s."
            )
            % {"way_back": svc.wording(study.platform).way_back},
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
    """Whatever the participant is at now: instructions, the current trial, or the end.

    A view writes nothing on the usual path: the answer before a trial (or the end of
    the instructions) marked it shown, and one query reads the trial and its session.
    """
    trial, following = trial_current_by_token(token)
    session = trial.session if trial is not None else session_or_404(token)
    if session.status == Status.DECLINED:
        raise Http404("No such session.")
    speak(session_language(session))
    if session.is_overdue():
        svc.session_expire(session=session)
    if session.status != Status.IN_PROGRESS:
        return _ended_page(request, session)
    if _closed(session):
        return message_page(
            request,
            _("This study has closed"),
            _("No more answers can be taken. Thank you for your time."),
            study=shown_study(session),
        )
    if session.current_position == 0 and session.instructions_done_at is None:
        context = {
            "study": shown_study(session),
            "session": session,
            "time_statement": study_time_statement(session.study),
        }
        return render(request, "participate/instructions.html", context)
    svc.trial_mark_shown(trial=trial)
    key = _refused_key(token, trial.position)
    refused = cache.get(key) or {}
    if refused:
        cache.delete(key)
    context = _trial_context(
        session, trial, error=refused.get("error", ""), previous=refused.get("previous")
    )
    context["preload"] = _image_url(following)
    return render(request, "participate/trial.html", context)


def _image_url(trial) -> str:
    image = trial_image(trial)
    return image.url if image else ""


@participant_page
@require_POST
def begin(request, token: str):
    session = session_or_404(token)
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


class FormAnswer:
    """Reads the answer from the trial form once the service has the trial (its options)."""

    def __init__(self, post):
        self.post = post
        self.previous: dict = {}

    def __call__(self, trial):
        answer_type, options, _key, _tolerance = svc.trial_spec(trial)
        value, self.previous = _form_answer(answer_type, options, self.post)
        return value


@participant_page
@require_POST
def answer(request, token: str):
    """Store the answer; a refused one goes back to the trial page with its message (PRG).

    The service reads the session and the trial itself, inside the answer's transaction.
    Everything here speaks the session's language, the form's own messages included.
    """
    language = token_language(token)
    if language:
        speak(language)
    session_url = reverse("participate:session", args=[token])
    try:
        position = int(request.POST.get("position", ""))
    except ValueError:
        return redirect(session_url)
    given = {
        "interactions": _interactions(request.POST.get("interactions", "")),
        "first_ms": _client_ms(request.POST.get("first_interaction_ms")),
    }
    form = FormAnswer(request.POST)
    try:
        svc.response_record(
            token=token,
            position=position,
            answer=form,
            client_ms=_client_ms(request.POST.get("client_ms")),
            interactions=given["interactions"],
            first_interaction_ms=given["first_ms"],
            idempotency_key=request.POST.get("key", "")[:64],
        )
    except ParticipantSession.DoesNotExist:
        raise Http404("No such session.") from None
    except svc.AnswerInvalid as exc:
        # Kept on the server, not in a cookie (lab machines often block them), and
        # shown once by the trial page, so a reload never posts the answer again.
        refused = {"error": exc.message, "previous": exc.extra.get("previous") or form.previous}
        refused["previous"].update(given)
        cache.set(_refused_key(token, position), refused, REFUSED_TTL)
    except (svc.AlreadyAnswered, svc.NotCurrentTrial) as exc:
        # A stale tab (the chart was answered in another one): the trial shown now says
        # so once, or the participant would think this answer counted.
        current = exc.extra.get("current")
        if current is not None:
            cache.set(_refused_key(token, current), {"error": exc.message}, REFUSED_TTL)
    except svc.SessionEnded:
        pass  # the session page says the session has ended
    return redirect(session_url)


@participant_page
@require_POST
def finish(request, token: str):
    session = session_or_404(token)
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
    session = session_or_404(token)
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
            "study": shown_study(session),
            "session": session,
            "back": reverse("participate:session", args=[token]),
        },
    )
