"""Model evaluation over the API: import model answers, read the analyses, download the prompts."""

from __future__ import annotations

import io

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.parsers import MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api.errors import error_body
from core.permissions import IsResearcher
from studies.api.model_eval_serializers import (
    ImportErrorSerializer,
    ImportReportSerializer,
    ModelAnswersUploadSerializer,
    ModelEvalExportErrorSerializer,
    ModelEvalSerializer,
)
from studies.api.results_serializers import wants_svg
from studies.selectors.model_eval import model_eval_report
from studies.selectors.study import study_get
from studies.services.model_eval import model_answers_import
from studies.services.model_eval_export import (
    ModelEvalExportError,
    model_eval_export_filename,
    model_eval_export_write,
)
from studies.services.model_prompts import prompts_export_write, prompts_filename


class StudyModelsScoped:
    permission_classes = [IsResearcher]

    def get_study(self):
        return study_get(user=self.request.user, slug=self.kwargs["slug"])


class ModelAnswersImportView(StudyModelsScoped, APIView):
    parser_classes = [MultiPartParser]

    @extend_schema(
        request={"multipart/form-data": ModelAnswersUploadSerializer},
        summary="Import model answers; nothing is stored when any row has a blocking problem",
        responses={201: ImportReportSerializer, 400: ImportErrorSerializer},
    )
    def post(self, request, slug):
        study = self.get_study()
        form = ModelAnswersUploadSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        upload = form.validated_data["file"]
        report = model_answers_import(
            study=study, source=upload.read(), filename=upload.name, user=request.user
        )
        body = report.as_dict()
        if report.blocking or not report.imported:
            problems = report.blocking or report.problems
            body.update(
                detail=f"Nothing imported: {len(problems)} problem(s) in the file.",
                errors={"file": [str(p) for p in problems]},
            )
            return Response(body, status=400)
        return Response(body, status=201)


class ModelEvalResultsView(StudyModelsScoped, APIView):
    @extend_schema(
        summary="Coverage and every analysis of the study's model answers beside the humans",
        parameters=[OpenApiParameter("svg", bool, description="Include the SVG plots.")],
        responses={200: ModelEvalSerializer},
    )
    def get(self, request, slug):
        return Response(model_eval_report(self.get_study(), svg=wants_svg(request)))


class ModelPromptsView(StudyModelsScoped, APIView):
    @extend_schema(
        summary="A zip of each chart's image and prompts.jsonl (chart_id, image, fact_prompt, "
        "mind_prompt)",
        responses={(200, "application/zip"): OpenApiResponse(OpenApiTypes.BINARY)},
    )
    def get(self, request, slug):
        study = self.get_study()
        buffer = io.BytesIO()
        prompts_export_write(study=study, out=buffer)
        response = HttpResponse(buffer.getvalue(), content_type="application/zip")
        response["Content-Disposition"] = f'attachment; filename="{prompts_filename(study)}"'
        return response


class ModelEvalExportView(StudyModelsScoped, APIView):
    @extend_schema(
        summary="A zip of every model analysis: one CSV per table, report.json, the SVG figures "
        "and a README.txt data dictionary",
        responses={
            (200, "application/zip"): OpenApiResponse(OpenApiTypes.BINARY),
            409: OpenApiResponse(
                ModelEvalExportErrorSerializer, description="No model answers yet."
            ),
        },
    )
    def get(self, request, slug):
        study = self.get_study()
        buffer = io.BytesIO()
        try:
            model_eval_export_write(study=study, out=buffer)
        except ModelEvalExportError as exc:
            return Response(error_body(str(exc)), status=409)
        response = HttpResponse(buffer.getvalue(), content_type="application/zip")
        response["Content-Disposition"] = (
            f'attachment; filename="{model_eval_export_filename(study)}"'
        )
        return response
