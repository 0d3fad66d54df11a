"""Study results over the API: the computed results, the analysis job, decisions, exports."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api.serializers import JobSerializer
from core.permissions import IsResearcher
from studies.api.results_serializers import (
    DecisionInputSerializer,
    DecisionSerializer,
    ExportErrorSerializer,
    ExportInputSerializer,
    ResultsSerializer,
    StudyComparisonSerializer,
    wants_svg,
)
from studies.selectors import results as results_sel
from studies.selectors.results_compare import study_comparison
from studies.selectors.study import study_get
from studies.services import exports
from studies.services.results.exclusion import exclusion_override_set, study_exclusion
from studies.services.results.schedule import results_request_compute


class StudyResultsScoped:
    permission_classes = [IsResearcher]

    def get_study(self):
        return study_get(user=self.request.user, slug=self.kwargs["slug"])


def _decision(d) -> dict:
    return {
        "session": d.facts.id,
        "number": d.facts.number,
        "status": d.facts.status,
        "included": d.included,
        "overridden": d.overridden,
        "override": d.facts.override,
        "reasons": d.reason_text,
    }


class StudyResultsView(StudyResultsScoped, APIView):
    @extend_schema(
        summary="The study's last computed results and the state of the analysis job",
        parameters=[OpenApiParameter("svg", bool, description="Include the SVG plots.")],
        responses={200: ResultsSerializer},
    )
    def get(self, request, slug):
        svg = wants_svg(request)
        study = self.get_study()
        snapshot, job, count, _ = results_sel.study_results_state(study)
        data = dict(snapshot.data) if snapshot and snapshot.computed_at else None
        reason = snapshot.stale_reason(count) if snapshot else None
        if data is not None and not svg:
            data.pop("svg", None)
        body = {
            "computed_at": snapshot.computed_at if snapshot else None,
            "computed_from_responses": snapshot.response_count if snapshot else 0,
            "responses_now": count,
            "stale": reason is not None,
            "stale_reason": {"code": reason.code, "text": reason.text} if reason else None,
            "job": JobSerializer(job, context={"request": request}).data if job else None,
            "results": data,
        }
        return Response(body)


class StudyResultsComputeView(StudyResultsScoped, APIView):
    @extend_schema(
        request=None,
        summary="Compute the results now, in the background",
        responses={202: JobSerializer},
    )
    def post(self, request, slug):
        job = results_request_compute(study=self.get_study(), user=request.user)
        return Response(JobSerializer(job, context={"request": request}).data, status=202)


class StudyResultsDecisionsView(StudyResultsScoped, APIView):
    @extend_schema(
        summary="Every participant who took part: included or excluded, and why",
        responses={200: DecisionSerializer(many=True)},
    )
    def get(self, request, slug):
        exclusion = study_exclusion(self.get_study())
        return Response([_decision(d) for d in exclusion.took_part])


class StudyResultsDecisionView(StudyResultsScoped, APIView):
    @extend_schema(
        request=DecisionInputSerializer,
        summary="Include or exclude one participant against the rules (reason required, logged)",
        responses={200: DecisionSerializer},
    )
    def post(self, request, slug, pk):
        study = self.get_study()
        form = DecisionInputSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        exclusion_override_set(study=study, session_id=pk, user=request.user, **form.validated_data)
        decision = next(d for d in study_exclusion(study).took_part if d.facts.id == pk)
        return Response(_decision(decision))


class StudyResultsExportView(StudyResultsScoped, APIView):
    @extend_schema(
        request=ExportInputSerializer,
        summary="Build an export in the background; the job's download_url serves it",
        responses={
            202: JobSerializer,
            400: ExportErrorSerializer,
        },
    )
    def post(self, request, slug):
        study = self.get_study()
        form = ExportInputSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        job = exports.export_request(
            study=study,
            slug=form.validated_data["format"],
            user=request.user,
            include_platform_ids=form.validated_data["include_platform_ids"],
        )
        return Response(
            JobSerializer(job, context={"request": request}).data, status=status.HTTP_202_ACCEPTED
        )


class StudyComparisonView(StudyResultsScoped, APIView):
    @extend_schema(
        summary="Kendall's tau between two of your studies' rankings of manipulation groups",
        responses={
            200: StudyComparisonSerializer,
            400: OpenApiResponse(description="The same study twice."),
        },
    )
    def get(self, request, slug, other):
        study = self.get_study()
        other_study = study_get(user=request.user, slug=other)  # 404 unless it is yours too
        if other_study.pk == study.pk:
            # A study against itself is a tau of 1 that says nothing: the pages offer only
            # other studies (comparable_studies), and so does the API.
            raise ValidationError({"other": ["Compare the study with another of your studies."]})
        return Response(study_comparison(study, other_study))
