"""The researcher's report API: the agreement report, its jobs, the tie rule and exports."""

from __future__ import annotations

import json
from types import SimpleNamespace

from django.http import HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from analysis.aggregation import METHODS
from annotation.api.reports_serializers import (
    ExportQuerySerializer,
    ReportQuerySerializer,
    ReportStateSerializer,
    TieRuleSerializer,
)
from annotation.models import Project
from annotation.selectors.agreement import report_fingerprint
from annotation.services.exports import (
    EXPORT_FORMATS,
    TABLES,
    NoSuchTable,
    default_label_source,
    project_export,
    report_document,
    table_csv,
)
from annotation.services.reports import (
    LABEL_SOURCES,
    project_tie_rule_set,
    report_last_job,
    report_latest,
    report_request,
)
from core.api.errors import error_body
from core.api.serializers import JobSerializer
from core.permissions import IsResearcher


def _project(request, slug) -> Project:
    return get_object_or_404(Project.objects.visible_to(request.user), slug=slug)


class _FileRenderer(BaseRenderer):
    """Lets a client ask for the file's type; errors still come back as JSON text."""

    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        if isinstance(data, bytes | str):
            return data
        return json.dumps(data).encode()


class CSVRenderer(_FileRenderer):
    media_type = "text/csv"
    format = "csv"


class SVGRenderer(_FileRenderer):
    media_type = "image/svg+xml"
    format = "svg"


class DownloadRenderer(_FileRenderer):
    media_type = "*/*"
    format = "download"


def _query(request) -> tuple[str | None, bool]:
    form = ReportQuerySerializer(data=request.query_params)
    form.is_valid(raise_exception=True)
    return form.validated_data.get("labels"), form.validated_data["include_excluded"]


QUERY_PARAMETERS = [
    OpenApiParameter("labels", str, enum=list(LABEL_SOURCES), description="Which labels."),
    OpenApiParameter("include_excluded", bool, description="Count every label set."),
]
# The file endpoints' type is the resource's own (the path says which table or export):
# DRF's ?format= would choose a renderer the view never uses, or 404 an unknown one, and
# the schema would offer it as a choice that changes nothing.
FILE_PARAMETERS = [*QUERY_PARAMETERS, OpenApiParameter("format", exclude=True)]


class FileNegotiation(DefaultContentNegotiation):
    """Content negotiation by the Accept header alone (no ``?format=`` override)."""

    settings = SimpleNamespace(URL_FORMAT_OVERRIDE=None)


class ReportView(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(
        parameters=QUERY_PARAMETERS,
        responses=ReportStateSerializer,
        summary="The stored agreement and dataset report, whether it is stale, and its job",
    )
    def get(self, request, slug):
        project = _project(request, slug)
        labels, include = _query(request)
        labels = labels or default_label_source(project)
        snapshot = report_latest(project=project, labels=labels, include_excluded=include)
        fingerprint = report_fingerprint(project, labels=labels, include_excluded=include)
        job = report_last_job(project=project, labels=labels, include_excluded=include)
        body = {
            "labels": labels,
            "include_excluded": include,
            "stale": snapshot is None or snapshot.fingerprint != fingerprint,
            "report": None
            if snapshot is None
            else {
                "computed_at": snapshot.computed_at,
                "seconds": snapshot.seconds,
                "data": report_document(snapshot.data),
            },
            "job": job,
        }
        return Response(ReportStateSerializer(body, context={"request": request}).data)


class ReportComputeView(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(
        request=ReportQuerySerializer,
        responses={202: JobSerializer},
        summary="Recompute the report in the background (a still-queued request is reused)",
    )
    def post(self, request, slug):
        project = _project(request, slug)
        form = ReportQuerySerializer(data=request.data)
        form.is_valid(raise_exception=True)
        job = report_request(
            project=project,
            labels=form.validated_data.get("labels") or default_label_source(project),
            include_excluded=form.validated_data["include_excluded"],
            user=request.user,
        )
        job.refresh_from_db()
        return Response(
            JobSerializer(job, context={"request": request}).data, status=status.HTTP_202_ACCEPTED
        )


class ReportSettingsView(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(responses=TieRuleSerializer, summary="The project's aggregation settings")
    def get(self, request, slug):
        return Response({"tie_rule": _project(request, slug).tie_rule})

    @extend_schema(
        request=TieRuleSerializer,
        responses=TieRuleSerializer,
        summary="Change the tie rule of the majority vote",
    )
    def patch(self, request, slug):
        project = _project(request, slug)
        # A PATCH changes what it sends: an empty one changes nothing (and says so).
        form = TieRuleSerializer(data=request.data, partial=True)
        form.is_valid(raise_exception=True)
        if "tie_rule" in form.validated_data:
            project = project_tie_rule_set(
                project=project, tie_rule=form.validated_data["tie_rule"], actor=request.user
            )
        return Response({"tie_rule": project.tie_rule})


class ReportFigureView(APIView):
    permission_classes = [IsResearcher]
    renderer_classes = [JSONRenderer, SVGRenderer]
    content_negotiation_class = FileNegotiation

    @extend_schema(
        parameters=FILE_PARAMETERS,
        responses={(200, "image/svg+xml"): OpenApiTypes.STR, 404: OpenApiResponse()},
        summary="Figure 1 of the stored report: error types per model, as SVG",
    )
    def get(self, request, slug):
        project = _project(request, slug)
        labels, include = _query(request)
        snapshot = report_latest(
            project=project,
            labels=labels or default_label_source(project),
            include_excluded=include,
        )
        if snapshot is None or not snapshot.figure_svg:
            return Response(
                error_body("No figure yet: compute the report first."),
                status=status.HTTP_404_NOT_FOUND,
            )
        return HttpResponse(snapshot.figure_svg, content_type="image/svg+xml")


class ReportTableView(APIView):
    permission_classes = [IsResearcher]
    renderer_classes = [JSONRenderer, CSVRenderer]
    content_negotiation_class = FileNegotiation

    @extend_schema(
        parameters=FILE_PARAMETERS,
        responses={(200, "text/csv"): OpenApiTypes.STR, 404: OpenApiResponse()},
        summary=f"One table of the stored report as CSV ({', '.join(TABLES)})",
    )
    def get(self, request, slug, name):
        project = _project(request, slug)
        labels, include = _query(request)
        labels = labels or default_label_source(project)
        snapshot = report_latest(project=project, labels=labels, include_excluded=include)
        if snapshot is None:
            return Response(
                error_body("No report yet: compute the report first."),
                status=status.HTTP_404_NOT_FOUND,
            )
        try:
            text = table_csv(snapshot.data, name)
        except NoSuchTable as exc:
            return Response(error_body(str(exc)), status=status.HTTP_404_NOT_FOUND)
        response = HttpResponse(text, content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{slug}-{labels}-{name}.csv"'
        return response


class ExportView(APIView):
    permission_classes = [IsResearcher]
    renderer_classes = [JSONRenderer, DownloadRenderer]
    content_negotiation_class = FileNegotiation

    @extend_schema(
        parameters=[
            *FILE_PARAMETERS,
            OpenApiParameter(
                "method", str, enum=list(METHODS), description="Aggregation method (see above)."
            ),
            OpenApiParameter(
                "fmt", str, OpenApiParameter.PATH, enum=list(EXPORT_FORMATS), description="Format."
            ),
        ],
        responses={
            (200, "application/json"): OpenApiResponse(
                OpenApiTypes.ANY,
                description="chocolate (a list of captions) and report-json (an object).",
            ),
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.BINARY, description="labels-csv."),
            (200, "application/x-ndjson"): OpenApiResponse(
                OpenApiTypes.BINARY, description="labels-jsonl: one JSON object per line."
            ),
            (200, "application/zip"): OpenApiResponse(
                OpenApiTypes.BINARY,
                description="dataset-zip: the dataset ready to publish (CHOCOLATE JSON, "
                "sentences and raw labels, Croissant, data package and card).",
            ),
            400: OpenApiResponse(description="Unknown label source or method."),
            404: OpenApiResponse(
                description="Unknown project, or unknown format (the answer lists the formats)."
            ),
        },
        summary="Download the aggregated dataset (chocolate, dataset-zip), raw labels or the report",
    )
    def get(self, request, slug, fmt):
        project = _project(request, slug)
        form = ExportQuerySerializer(data=request.query_params)
        form.is_valid(raise_exception=True)
        labels, include = form.validated_data.get("labels"), form.validated_data["include_excluded"]
        if fmt not in EXPORT_FORMATS:
            # A path segment: 404 as for any URL that is not there, saying which ones are.
            choices = ", ".join(EXPORT_FORMATS)
            message = f"There is no export format “{fmt}”: choose one of {choices}."
            return Response(error_body(message, {"fmt": [message]}), status=404)
        export = project_export(
            project=project,
            fmt=fmt,
            labels=labels,
            include_excluded=include,
            base_url=request.build_absolute_uri("/").rstrip("/"),
            method=form.validated_data.get("method"),
        )
        response = StreamingHttpResponse(
            export.byte_chunks(),
            content_type=export.http_content_type,
        )
        response["Content-Disposition"] = f'attachment; filename="{export.filename}"'
        return response
