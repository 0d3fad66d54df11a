"""The participant flow as JSON, for custom front ends (jsPsych, a kiosk app).

No user account: ``POST /participate/studies/{slug}/sessions/`` returns a session
token, and every later call names it in its path. The token is the credential;
it is 43 random characters and answers 404 when it is unknown. The same rules as
the HTML pages apply (they call the same services).
"""

from __future__ import annotations

from django.http import Http404
from django.utils import translation
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import exceptions, status
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api.lean_post import LeanJSONPostView
from core.api.parsers import JSONParser
from core.languages import speaking
from core.media_urls import absolute_public_url
from studies.api.participant_serializers import (
    CompletionSerializer,
    DeclinedSerializer,
    ParticipantErrorSerializer,
    PublicStudySerializer,
    SessionStateSerializer,
    StartSerializer,
    SubmitResultSerializer,
    SubmitSerializer,
    TrialSerializer,
    session_state,
)
from studies.models import ParticipantSession, Platform, Study
from studies.selectors.languages import language_choose, study_in_language, token_language
from studies.selectors.study import (
    session_by_token,
    study_unavailable_reason,
    trial_current_by_token,
    trial_display,
    trial_image,
)
from studies.selectors.timing import session_clock, study_expected_minutes, time_statement
from studies.services import sessions as svc
from studies.services.sessions.devices import device_check

MAX_BODY_BYTES = 16 * 1024
Status = ParticipantSession.Status

TAG = ["participate"]


class BodyTooLarge(exceptions.APIException):
    status_code = 413
    default_detail = f"The request body is too large (the limit is {MAX_BODY_BYTES // 1024} KB)."
    default_code = "too_large"


# ------------------------------------------------------------------ views


def _image_url(request, trial) -> str | None:
    image = trial_image(trial)
    return absolute_public_url(request, image) if image else None


def trial_payload(request, session, trial, *, following=None) -> dict:
    """A trial as the client shows it; ``following`` is the trial after it, if known."""
    shown = trial_display(trial, session)
    clock = session_clock(session)
    return {
        "position": trial.position,
        "number": trial.position + 1,
        "trial_count": session.trial_count,
        "answer_type": shown.answer_type,
        "prompt": shown.prompt,
        "options": shown.options,
        "items": [{"index": i, "text": text} for i, text in shown.items],
        "image_url": _image_url(request, trial),
        "width": shown.width,
        "height": shown.height,
        "alt": shown.alt,
        "shown_at": trial.shown_at,
        "time_left": clock.text if clock else "",
        "seconds_left": clock.seconds_left if clock else None,
        # The chart of the trial after this one, for the client to fetch ahead.
        "preload_image_url": _image_url(request, following),
    }


ERRORS = {
    400: OpenApiResponse(
        ParticipantErrorSerializer, description="Invalid input or an unreadable answer."
    ),
    404: OpenApiResponse(ParticipantErrorSerializer, description="Unknown study or session token."),
    409: OpenApiResponse(
        ParticipantErrorSerializer, description="Not the current trial / already answered."
    ),
    410: OpenApiResponse(
        ParticipantErrorSerializer, description="The session has ended (timed out, withdrawn)."
    ),
    413: OpenApiResponse(ParticipantErrorSerializer, description="Request body too large."),
}


TOO_MANY_ARRIVALS = OpenApiResponse(
    ParticipantErrorSerializer,
    description="`too_many_arrivals`: too many starts and declines from this address into this "
    "study within a short time; `Retry-After` says when to try again.",
)


class ParticipantAPIView(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]
    parser_classes = [JSONParser]

    def dispatch(self, request, *args, **kwargs):
        # The session's language for everything the API says, refusals included (as
        # the HTML pages); before a session exists, the view chooses (speaking()).
        with speaking(request, token_language(kwargs.get("token", ""))):
            return super().dispatch(request, *args, **kwargs)

    def initial(self, request, *args, **kwargs):
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if length > MAX_BODY_BYTES:
            raise BodyTooLarge()
        super().initial(request, *args, **kwargs)

    def handle_exception(self, exc):
        if isinstance(exc, ParticipantSession.DoesNotExist):
            exc = exceptions.NotFound()
        return super().handle_exception(exc)

    def get_session(self, token: str) -> ParticipantSession:
        session = session_by_token(token) if len(token) <= 64 else None
        if session is None or session.status == Status.DECLINED:
            raise Http404
        if session.is_overdue():
            svc.session_expire(session=session)
        return session


def _study(slug: str) -> Study:
    study = Study.objects.filter(slug=slug).first()
    if study is None:
        raise Http404
    return study


class StudyPublicView(ParticipantAPIView):
    @extend_schema(
        tags=TAG,
        summary="What a participant reads before starting (consent, instructions)",
        responses={200: PublicStudySerializer, 404: ERRORS[404]},
    )
    def get(self, request, slug: str):
        real = _study(slug)
        language = language_choose(
            real,
            asked=request.query_params.get("lang", ""),
            accept_language=request.META.get("HTTP_ACCEPT_LANGUAGE", ""),
        )
        translation.activate(language)  # dispatch's speaking() restores it
        study = study_in_language(real, language)
        reason = study_unavailable_reason(study)
        video = study.instructions_video
        expected = study_expected_minutes(study)
        data = {
            "slug": study.slug,
            "language": language,
            "languages": real.languages,
            "title": study.title,
            "description": study.description,
            "consent_text": study.consent_text,
            "keep_answers_on_withdrawal": study.keep_answers_on_withdrawal,
            "instructions_text": study.instructions_text,
            "instructions_video_url": request.build_absolute_uri(video.url) if video else None,
            "time_limit_minutes": study.time_limit_minutes,
            "expected_minutes": expected,
            "time_statement": time_statement(expected=expected, limit=study.time_limit_minutes),
            "platform": study.platform,
            "id_param": Platform(study.platform).id_param,
            "allowed_devices": study.allowed_devices,
            "accepting": reason is None,
            "unavailable_reason": reason.code if reason else None,
        }
        if reason is not None and reason.code == "not_open":
            # Never published: its texts are drafts that no participant has been shown
            # (the study link's page shows none of them either).
            data.update(
                dict.fromkeys(("title", "description", "consent_text", "instructions_text"), "")
            )
            data.update(instructions_video_url=None, time_statement="")
        return Response(PublicStudySerializer(data).data)


class SessionStartView(ParticipantAPIView):
    @extend_schema(
        tags=TAG,
        summary="Start a session after consent, or resume it with its token",
        description=(
            "201 with a new session. When the platform id already has a session, 200 (resumed) "
            "only if `token` is that session's token; otherwise 409 with code "
            "`already_started` and no token, since a platform id is no proof of who is asking. "
            "400 with code `link_problem` when the platform id is missing or malformed; 409 "
            "with code `study_unavailable` when the study is not open, paused or closed, and "
            "`study_full` (reason `full`) when it has the participants it needs: its target, or "
            "its stopping rule was met."
            " 409 with code `device_not_allowed` when the study is for computers and tablets and the "
            "client is a phone (its `Sec-CH-UA-Mobile` hint, or a user agent with `Mobi`; "
            "a user agent naming a tablet, such as an iPad or a Fire tablet, never is one)."
        ),
        request=StartSerializer,
        responses={
            201: SessionStateSerializer,
            200: SessionStateSerializer,
            400: ERRORS[400],
            404: ERRORS[404],
            409: OpenApiResponse(
                ParticipantErrorSerializer,
                description="`already_started`: this platform id has a session and no token "
                "proved it; `study_unavailable`: the study takes no one now; `study_full`: it "
                "has the participants it needs.",
            ),
            413: ERRORS[413],
            429: TOO_MANY_ARRIVALS,
        },
    )
    def post(self, request, slug: str):
        study = _study(slug)
        serializer = StartSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        if not serializer.validated_data["consent"]:
            raise exceptions.ValidationError(
                {"consent": ["Consent is needed to start; use the decline endpoint to decline."]}
            )
        params = serializer.validated_data["params"]
        language = language_choose(
            study,
            asked=params.get("lang", ""),
            accept_language=request.META.get("HTTP_ACCEPT_LANGUAGE", ""),
        )
        # Refusals to start (link problem, full, device) in the language chosen.
        translation.activate(language)  # dispatch's speaking() restores it
        identity = svc.identity_from_params(study.platform, params)
        device_check(study=study, meta=request.META)
        svc.arrival_check(request=request, study=study)
        result = svc.session_start(
            study=study,
            identity=identity,
            proof=serializer.validated_data["token"],
            user_agent=request.META.get("HTTP_USER_AGENT", ""),
            language=language,
        )
        return Response(
            session_state(result.session),
            status=status.HTTP_200_OK if result.resumed else status.HTTP_201_CREATED,
        )


class SessionDeclineView(ParticipantAPIView):
    @extend_schema(
        tags=TAG,
        summary="Record that someone declined consent (nothing else is stored)",
        description="409 with code `study_unavailable` (or `study_full`) when the study takes "
        "no one now (a draft, paused, closed or full study): nothing is recorded.",
        request=None,
        responses={
            200: DeclinedSerializer,
            404: ERRORS[404],
            409: OpenApiResponse(
                ParticipantErrorSerializer, description="The study takes no one now."
            ),
            429: TOO_MANY_ARRIVALS,
        },
    )
    def post(self, request, slug: str):
        study = _study(slug)
        svc.arrival_check(request=request, study=study)
        svc.session_decline(study=study)
        return Response(
            {"status": Status.DECLINED, "detail": "Declined. Nothing else was recorded."}
        )


class SessionStateView(ParticipantAPIView):
    @extend_schema(
        tags=TAG,
        summary="Where a session stands (stage, progress, time left, completion code)",
        responses={200: SessionStateSerializer, 404: ERRORS[404]},
    )
    def get(self, request, token: str):
        return Response(session_state(self.get_session(token)))


class SessionBeginView(ParticipantAPIView):
    @extend_schema(
        tags=TAG,
        summary="Mark the instructions as read",
        description=(
            "Starts the first trial's clock when the participant leaves the instructions, "
            "as the shipped pages do. Optional for a custom front end that shows its own "
            "instructions: without it, the first `GET` of the current trial starts the clock "
            "and answering works the same."
        ),
        request=None,
        responses={200: SessionStateSerializer, 404: ERRORS[404], 410: ERRORS[410]},
    )
    def post(self, request, token: str):
        session = self.get_session(token)
        if session.status != Status.IN_PROGRESS:
            raise svc.SessionEnded(svc.ended_message(session), status=session.status)
        svc.session_begin(session=session)
        return Response(session_state(session))


class CurrentTrialView(ParticipantAPIView):
    @extend_schema(
        tags=TAG,
        summary="The current trial (its chart, question and answer options)",
        description="The first request for a trial starts its server-side clock.",
        responses={200: TrialSerializer, 404: ERRORS[404], 409: ERRORS[409], 410: ERRORS[410]},
    )
    def get(self, request, token: str):
        trial, following = trial_current_by_token(token) if len(token) <= 64 else (None, None)
        session = trial.session if trial is not None else self.get_session(token)
        if session.status == Status.DECLINED:
            raise Http404
        if session.is_overdue():
            svc.session_expire(session=session)
        if session.status == Status.COMPLETED:
            raise svc.NotFinished(
                "Every trial is answered; finish the session.", status="completed"
            )
        if session.status != Status.IN_PROGRESS:
            raise svc.SessionEnded(svc.ended_message(session), status=session.status)
        # Marked already by the answer before it (or by begin); a client that skipped
        # begin starts the clock here.
        svc.trial_mark_shown(trial=trial)
        return Response(trial_payload(request, session, trial, following=following))


class ResponseSubmitView(ParticipantAPIView, LeanJSONPostView):
    # The request every participant of a classroom sends in the same second: a plain JSON
    # POST skips DRF's request and response objects (core/api/lean_post.py).
    max_body_bytes = MAX_BODY_BYTES

    @extend_schema(
        tags=TAG,
        summary="Answer the current trial",
        description=(
            "Stores the answer once. Repeating a stored answer (same `idempotency_key`, or the "
            "same answer without a key) returns 200 with `duplicate: true`. An unreadable number "
            "is a 400 with code `answer_invalid` and a message for the participant; the trial "
            "stays open. So is a ranking sent without `interactions` (or with 0): the client "
            "must show the items unranked and report how the participant placed them. "
            "Answering any trial other than the current one is a 409."
        ),
        request=SubmitSerializer,
        responses={
            201: SubmitResultSerializer,
            200: SubmitResultSerializer,
            **ERRORS,
        },
    )
    def post(self, request, token: str):
        body, code = self.post_json(request, request.data, token=token)
        return Response(body, status=code)

    def post_json(self, request, data, *, token: str) -> tuple[dict, int]:
        if len(token) > 64:
            raise Http404
        validated = SubmitSerializer.validated_plain(data)
        if validated is None:
            serializer = SubmitSerializer(data=data)
            serializer.is_valid(raise_exception=True)
            validated = serializer.validated_data
        data = validated
        # The service reads the session itself: one query fewer per answer.
        result = svc.response_record(
            token=token,
            position=data["position"],
            answer=data["answer"],
            client_ms=data.get("client_ms"),
            interactions=data.get("interactions"),
            first_interaction_ms=data.get("first_interaction_ms"),
            interaction_required=True,
            idempotency_key=data.get("idempotency_key") or "",
            with_next=True,
        )
        next_trial = result.next_trial
        body = {
            "stored": True,
            "duplicate": result.duplicate,
            "position": result.response.position,
            "session": session_state(result.session),
            "next_trial": trial_payload(
                request, result.session, next_trial, following=result.after_next
            )
            if next_trial
            else None,
        }
        return body, status.HTTP_200_OK if result.duplicate else status.HTTP_201_CREATED


class SessionFinishView(ParticipantAPIView):
    @extend_schema(
        tags=TAG,
        summary="Finish: the completion code and where to send the participant",
        request=None,
        responses={200: CompletionSerializer, 404: ERRORS[404], 409: ERRORS[409], 410: ERRORS[410]},
    )
    def post(self, request, token: str):
        completion = svc.session_finish(session=self.get_session(token))
        return Response({"code": completion.code, "redirect_url": completion.redirect_url})


class SessionWithdrawView(ParticipantAPIView):
    @extend_schema(
        tags=TAG,
        summary="Withdraw (answers are deleted unless the consent says they are kept)",
        request=None,
        responses={200: SessionStateSerializer, 404: ERRORS[404]},
    )
    def post(self, request, token: str):
        self.get_session(token)
        return Response(session_state(svc.session_withdraw(token=token)))


__all__ = [
    "CurrentTrialView",
    "ResponseSubmitView",
    "SessionBeginView",
    "SessionFinishView",
    "SessionStartView",
    "SessionStateView",
    "SessionWithdrawView",
    "SessionDeclineView",
    "StudyPublicView",
]
