"""Study set-up and monitoring over the API. Others' studies are 404s."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Count
from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api.errors import error_body
from core.api.parsers import JSONParser
from core.permissions import IsResearcher
from studies.api.study_serializers import (
    AttentionCheckSerializer,
    MonitorSerializer,
    PairsReplacedErrorSerializer,
    PairsSetSerializer,
    ReadinessSerializer,
    SessionDetailSerializer,
    SessionReleaseSerializer,
    SessionSerializer,
    StarterTextsSerializer,
    StudyPairSerializer,
    StudyPreviewSerializer,
    StudySerializer,
    StudyStatusSerializer,
    WarningsErrorSerializer,
)
from studies.models import AttentionCheck, ChartSet, ParticipantSession, Study
from studies.selectors.monitor import study_monitor
from studies.selectors.readiness import study_blockers, study_warnings
from studies.selectors.study import (
    complete_pair_ids,
    session_trials,
    study_pair_questions,
)
from studies.services import study as setup
from studies.services import study_create
from studies.services.sessions import (
    Identity,
    SessionError,
    session_release,
    session_start,
    sessions_expire_overdue,
)
from studies.starter_texts import starter_texts


def _studies(user):
    return (
        Study.objects.visible_to(user)
        .select_related("owner", "chart_set")
        .annotate(
            n_pairs=Count("study_pairs", distinct=True),
            n_checks=Count("attention_checks", distinct=True),
        )
        .order_by("-created_at", "-id")
    )


class StudyListCreateView(generics.ListCreateAPIView):
    """Studies you own or that were shared with you; POST creates one."""

    permission_classes = [IsResearcher]
    serializer_class = StudySerializer
    query_parameters = ("status",)

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "status", str, enum=list(Study.Status.values), description="Only studies in it."
            )
        ]
    )
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        studies = _studies(self.request.user)
        wanted = self.request.query_params.get("status") if self.request.method == "GET" else None
        if wanted is None:
            return studies
        if wanted not in Study.Status.values:
            choices = ", ".join(Study.Status.values)
            raise ValidationError(
                {"status": [f"“{wanted[:40]}” is not a status: choose one of {choices}."]}
            )
        return studies.filter(status=wanted)

    @transaction.atomic
    def perform_create(self, serializer):
        data = serializer.settings_data()
        study = study_create(
            owner=self.request.user,
            title=data.pop("title"),
            description=data.pop("description", ""),
        )
        if data:
            setup.study_update(study=study, actor=self.request.user, **data)
        serializer.instance = study


class StudyScoped:
    permission_classes = [IsResearcher]

    def get_study(self) -> Study:
        return get_object_or_404(_studies(self.request.user), slug=self.kwargs["slug"])


class StudyDetailView(StudyScoped, generics.RetrieveUpdateAPIView):
    """A study's settings. PATCH changes them; the design locks once real participants started."""

    serializer_class = StudySerializer
    lookup_field = "slug"

    def get_queryset(self):
        return _studies(self.request.user)

    def perform_update(self, serializer):
        setup.study_update(
            study=serializer.instance, actor=self.request.user, **serializer.settings_data()
        )


class StudyStatusView(StudyScoped, APIView):
    @extend_schema(
        summary="Change the status (draft -> pilot -> live -> paused -> closed)",
        description=(
            "400 lists the blockers when the study is not ready. Starting a pilot or going live "
            "with warnings (no attention checks, no completion code or redirect, a time limit "
            "shorter than the expected duration) answers 409 listing them, and changes nothing "
            "until the request says confirm_warnings=true."
        ),
        request=StudyStatusSerializer,
        responses={
            200: StudySerializer,
            409: OpenApiResponse(WarningsErrorSerializer, description="Warnings to confirm."),
        },
    )
    def post(self, request, slug):
        study = self.get_study()
        serializer = StudyStatusSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        try:
            setup.study_status_change(
                study=study,
                status=serializer.validated_data["status"],
                actor=request.user,
                confirm_warnings=serializer.validated_data["confirm_warnings"],
            )
        except setup.WarningsNotConfirmed as exc:
            messages = [w.message for w in exc.warnings]
            body = error_body(
                "The study has warnings; send confirm_warnings=true to go ahead anyway.",
                {"confirm_warnings": messages},
            )
            body["warnings"] = [w.as_dict() for w in exc.warnings]
            return Response(body, status=status.HTTP_409_CONFLICT)
        return Response(StudySerializer(self.get_study(), context={"request": request}).data)


class StudyStarterTextsView(StudyScoped, APIView):
    @extend_schema(
        summary="Starter consent, instructions and debrief texts written from the study's settings",
        description="Nothing is saved: PATCH the study with the edited texts. What only the "
        "researcher knows is left in [square brackets]; the readiness warnings list texts that "
        "still have one.",
        responses={200: StarterTextsSerializer},
    )
    def get(self, request, slug):
        return Response(starter_texts(self.get_study()))


class StudyReadinessView(StudyScoped, APIView):
    @extend_schema(
        summary="What stops the study from running, and the warnings to confirm",
        responses={200: ReadinessSerializer},
    )
    def get(self, request, slug):
        study = self.get_study()
        blockers = [b.as_dict() for b in study_blockers(study)]
        warnings = [w.as_dict() for w in study_warnings(study)]
        return Response({"ready": not blockers, "blockers": blockers, "warnings": warnings})


class StudyPairsView(StudyScoped, APIView):
    @extend_schema(
        summary="The pairs the study shows", responses={200: StudyPairSerializer(many=True)}
    )
    def get(self, request, slug):
        return Response(StudyPairSerializer(study_pair_questions(self.get_study()), many=True).data)

    @extend_schema(
        summary="Choose the study's pairs from a chart set",
        description="Replaces the study's choice with these pairs. A choice that drops pairs "
        "the study uses now (another chart set's, or ones left out) answers 409 with "
        "`replaced` and changes nothing, unless the body says replace=true. The pair ids are "
        "the `id` fields of GET /api/v1/library/chart-sets/{slug}/pairs/.",
        request=PairsSetSerializer,
        responses={
            200: StudyPairSerializer(many=True),
            409: OpenApiResponse(
                PairsReplacedErrorSerializer, description="The choice would replace pairs."
            ),
        },
    )
    def put(self, request, slug):
        study = self.get_study()
        serializer = PairsSetSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        chart_set = ChartSet.objects.visible_to(request.user).filter(slug=data["chart_set"]).first()
        if chart_set is None:
            # The study is there; the body names a set it cannot use: the body's field is wrong.
            raise ValidationError(
                {"chart_set": [f"No chart set “{data['chart_set']}” in your library."]}
            )
        if data["all"]:
            ids = complete_pair_ids(chart_set)
        else:
            ids = data["questions"]
        setup.study_pairs_set(
            study=study,
            chart_set=chart_set,
            question_ids=ids,
            actor=request.user,
            replace=data["replace"],
        )
        return Response(StudyPairSerializer(study_pair_questions(study), many=True).data)


class StudyVideoView(StudyScoped, APIView):
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        summary="Upload the instructions video (MP4, WebM or Ogg)",
        request={
            "multipart/form-data": {
                "type": "object",
                "properties": {"video": {"type": "string", "format": "binary"}},
            }
        },
        responses={200: StudySerializer},
    )
    def put(self, request, slug):
        study = self.get_study()
        upload = request.FILES.get("video")
        if upload is None:
            return Response(
                {
                    "detail": "Send the file in the field 'video'.",
                    "errors": {"video": ["Required."]},
                },
                status=status.HTTP_400_BAD_REQUEST,
            )
        setup.study_video_set(study=study, upload=upload, actor=request.user)
        return Response(StudySerializer(study, context={"request": request}).data)

    @extend_schema(summary="Remove the instructions video", responses={204: None})
    def delete(self, request, slug):
        setup.study_video_clear(study=self.get_study(), actor=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class AttentionCheckListCreateView(StudyScoped, APIView):
    parser_classes = [JSONParser, MultiPartParser, FormParser]

    @extend_schema(
        summary="The study's attention checks", responses={200: AttentionCheckSerializer(many=True)}
    )
    def get(self, request, slug):
        checks = AttentionCheck.objects.filter(study=self.get_study())
        return Response(
            AttentionCheckSerializer(checks, many=True, context={"request": request}).data
        )

    @extend_schema(
        summary="Add an attention check (an instructed-response item or a sanity chart)",
        request=AttentionCheckSerializer,
        responses={201: AttentionCheckSerializer},
    )
    def post(self, request, slug):
        study = self.get_study()
        serializer = AttentionCheckSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        image = data.pop("image", None)
        check = setup.attention_check_create(
            study=study, actor=request.user, image=image.read() if image else None, **data
        )
        return Response(
            AttentionCheckSerializer(check, context={"request": request}).data,
            status=status.HTTP_201_CREATED,
        )


class AttentionCheckDetailView(StudyScoped, APIView):
    def get_check(self) -> AttentionCheck:
        return get_object_or_404(AttentionCheck, study=self.get_study(), pk=self.kwargs["pk"])

    @extend_schema(summary="One attention check", responses={200: AttentionCheckSerializer})
    def get(self, request, slug, pk):
        return Response(
            AttentionCheckSerializer(self.get_check(), context={"request": request}).data
        )

    @extend_schema(summary="Delete an attention check", responses={204: None})
    def delete(self, request, slug, pk):
        setup.attention_check_delete(check=self.get_check(), actor=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class StudyMonitorView(StudyScoped, APIView):
    @extend_schema(
        summary="Live numbers: sessions by status, order balance, durations, attention checks",
        responses={200: MonitorSerializer},
    )
    def get(self, request, slug):
        study = self.get_study()
        sessions_expire_overdue(study=study)
        monitor = study_monitor(study)
        data = {
            "counts": monitor.counts,
            "pilot_sessions": monitor.test_counts["pilot"],
            "preview_sessions": monitor.test_counts["preview"],
            "balance": [
                {
                    "code": row.code,
                    "manipulated_first": row.manipulated_first,
                    "non_manipulated_first": row.non_manipulated_first,
                    "difference": row.difference,
                }
                for row in monitor.balance
            ],
            "max_imbalance": monitor.max_imbalance,
            "median_duration_s": monitor.median_duration_s,
            "attention_answered": monitor.attention_answered,
            "attention_failed": monitor.attention_failed,
            "attention_failure_rate": monitor.attention_failure_rate,
            "participants_failing_attention": monitor.participants_failing,
            "precision": monitor.precision,
        }
        return Response(MonitorSerializer(data).data)


class StudySessionListView(StudyScoped, generics.ListAPIView):
    """Every session of the study, newest first, with its status and order seed."""

    serializer_class = SessionSerializer

    def get_queryset(self):
        return ParticipantSession.objects.filter(study=self.get_study()).order_by(
            "-created_at", "-id"
        )


class StudySessionDetailView(StudyScoped, APIView):
    @extend_schema(
        summary="One session: its stored order and every trial with its answer",
        responses={200: SessionDetailSerializer},
    )
    def get(self, request, slug, pk):
        session = get_object_or_404(ParticipantSession, study=self.get_study(), pk=pk)
        trials = list(session_trials(session))
        return Response(SessionDetailSerializer(session, context={"trials": trials}).data)


class StudySessionReleaseView(StudyScoped, APIView):
    @extend_schema(
        summary="Let this platform id start again (the session is kept as abandoned)",
        description=(
            "For a participant who cannot go back to the browser they started in: their platform "
            "id alone never resumes a session. The session becomes `abandoned` (its answers are "
            "kept) and the next start with the id begins a new session. Completed sessions "
            "cannot be released. Logged in the audit log."
        ),
        request=SessionReleaseSerializer,
        responses={200: SessionSerializer, 400: OpenApiResponse(description="Not releasable.")},
    )
    def post(self, request, slug, pk):
        study = self.get_study()
        get_object_or_404(ParticipantSession, study=study, pk=pk)
        form = SessionReleaseSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        session = session_release(
            study=study, session_id=pk, user=request.user, reason=form.validated_data.get("reason")
        )
        return Response(SessionSerializer(session).data)


class StudyPreviewView(StudyScoped, APIView):
    @extend_schema(
        summary="Start a preview session (marked, never counted) to try the study",
        request=None,
        responses={
            201: StudyPreviewSerializer,
            400: OpenApiResponse(description="The study cannot run yet."),
        },
    )
    def post(self, request, slug):
        study = self.get_study()
        try:
            result = session_start(
                study=study, identity=Identity(platform=study.platform), preview=True
            )
        except SessionError as exc:
            raise ValidationError({"study": [exc.message]}) from None
        url = request.build_absolute_uri(
            reverse("participate:session", args=[result.session.token])
        )
        return Response({"token": result.session.token, "url": url}, status=status.HTTP_201_CREATED)


class StudyTestSessionsClearView(StudyScoped, APIView):
    @extend_schema(
        summary="Delete the study's pilot and preview sessions", request=None, responses={204: None}
    )
    def post(self, request, slug):
        setup.study_test_sessions_clear(study=self.get_study(), actor=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)
