"""Chart library API: chart sets, groups, pairs, charts, images, import, generator, manipulations.

Imports: an upload up to ``CHARTROOM_IMPORT_SYNC_MAX_BYTES`` (25 MB) is imported in the request
(201 with the summary, or 400 with every problem by file); a larger one, or any with
``background=true``, is imported by a job (202 with the job's id; poll ``/api/v1/jobs/<id>/``,
whose ``result`` has ``ok`` and the summary or ``problems``). Generating more than 20 specs at
once likewise runs as a job.
"""

from __future__ import annotations

import base64
import io

from django.http import HttpResponse
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from analysis.tables import natural_key
from core.api.errors import error_body
from core.api.parsers import JSONParser
from core.permissions import IsResearcher
from studies.api.library_serializers import (
    ChartSerializer,
    ChartSetCreateSerializer,
    ChartSetSerializer,
    ChartSetUpdateSerializer,
    ErrorSerializer,
    GenerateResultSerializer,
    GroupSerializer,
    ImageUploadSerializer,
    ImportResultSerializer,
    ImportSerializer,
    JobQueuedSerializer,
    ManipulationTypeCreateSerializer,
    ManipulationTypeSerializer,
    PairSerializer,
    PairUpdateSerializer,
    PreviewInputSerializer,
    PreviewSerializer,
    SpecsSerializer,
)
from studies.chartgen import SIZE_PX
from studies.models import ChartGroup
from studies.selectors.library import (
    chart_get,
    chartset_get,
    chartsets_for_user,
    manipulation_types,
    question_get,
    questions_of,
)
from studies.services.library import (
    SYNC_MAX_SPECS,
    ImportRejected,
    chart_image_replace,
    chartset_create,
    chartset_delete,
    chartset_export_zip,
    chartset_generate,
    chartset_generate_enqueue,
    chartset_import,
    chartset_import_enqueue,
    chartset_update,
    manipulation_type_create,
    pair_delete,
    pair_preview,
    question_update,
    specs_parse,
    sync_max_bytes,
    upload_bundle,
)

NOT_FOUND = OpenApiResponse(ErrorSerializer, description="Not found, or not a set you can see.")
INVALID = OpenApiResponse(ErrorSerializer, description="Invalid input; nothing was changed.")
QUEUED = OpenApiResponse(JobQueuedSerializer, description="Running as a background job.")


def _queued(request, job) -> Response:
    url = request.build_absolute_uri(reverse("api:job-detail", args=[job.pk]))
    return Response(
        {"job": job.pk, "state": job.state, "job_url": url}, status=status.HTTP_202_ACCEPTED
    )


class ChartSetListCreateView(generics.ListAPIView):
    """Chart sets you own or that were shared with you; POST creates an empty one."""

    permission_classes = [IsResearcher]
    serializer_class = ChartSetSerializer

    def get_queryset(self):
        return chartsets_for_user(user=self.request.user)

    @extend_schema(
        request=ChartSetCreateSerializer,
        responses={201: ChartSetSerializer, 400: INVALID},
        summary="Create an empty chart set",
    )
    def post(self, request):
        form = ChartSetCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        chart_set = chartset_create(owner=request.user, **form.validated_data)
        return Response(
            ChartSetSerializer(chart_set, context={"request": request}).data,
            status=status.HTTP_201_CREATED,
        )


class ChartSetDetailView(APIView):
    permission_classes = [IsResearcher]

    def _get(self, request, slug):
        return chartsets_for_user(user=request.user).filter(slug=slug).first() or chartset_get(
            user=request.user, slug=slug
        )

    @extend_schema(responses={200: ChartSetSerializer, 404: NOT_FOUND}, summary="One chart set")
    def get(self, request, slug):
        return Response(
            ChartSetSerializer(self._get(request, slug), context={"request": request}).data
        )

    @extend_schema(
        request=ChartSetUpdateSerializer,
        responses={200: ChartSetSerializer, 400: INVALID, 404: NOT_FOUND},
        summary="Rename or describe a chart set",
    )
    def patch(self, request, slug):
        chart_set = chartset_get(user=request.user, slug=slug)
        form = ChartSetUpdateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        chartset_update(chart_set=chart_set, **form.validated_data)
        return Response(
            ChartSetSerializer(self._get(request, slug), context={"request": request}).data
        )

    @extend_schema(
        responses={204: None, 400: INVALID, 404: NOT_FOUND},
        summary="Delete a chart set (owner only) with its pairs and images",
    )
    def delete(self, request, slug):
        chartset_delete(chart_set=chartset_get(user=request.user, slug=slug), user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class ChartSetExportView(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(
        responses={(200, "application/zip"): OpenApiTypes.BINARY, 404: NOT_FOUND},
        summary="The set as a .zip in the CHARTOM layout (imports again)",
    )
    def get(self, request, slug):
        chart_set = chartset_get(user=request.user, slug=slug)
        response = HttpResponse(
            chartset_export_zip(chart_set=chart_set), content_type="application/zip"
        )
        response["Content-Disposition"] = f'attachment; filename="{chart_set.slug}.zip"'
        return response


class GroupListView(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(
        responses={200: GroupSerializer(many=True), 404: NOT_FOUND},
        summary="The groups of a chart set with their pairs' codes",
    )
    def get(self, request, slug):
        chart_set = chartset_get(user=request.user, slug=slug)
        groups = list(
            ChartGroup.objects.filter(chart_set=chart_set)
            .select_related("manipulation")
            .prefetch_related("questions")
        )
        for group in groups:
            group.sorted_questions = sorted(
                group.questions.all(), key=lambda q: natural_key(q.code)
            )
        groups.sort(key=lambda g: natural_key(g.code))
        return Response(GroupSerializer(groups, many=True).data)


class PairListView(generics.ListAPIView):
    """The pairs of a chart set (questions with their key and both charts), G1 before G10."""

    permission_classes = [IsResearcher]
    serializer_class = PairSerializer

    def get_queryset(self):
        chart_set = chartset_get(user=self.request.user, slug=self.kwargs["slug"])
        return questions_of(chart_set=chart_set)


class PairDetailView(APIView):
    permission_classes = [IsResearcher]

    def _context(self, request):
        return {"request": request}

    @extend_schema(responses={200: PairSerializer, 404: NOT_FOUND}, summary="One pair")
    def get(self, request, slug, code):
        question = question_get(chart_set=chartset_get(user=request.user, slug=slug), code=code)
        return Response(PairSerializer(question, context=self._context(request)).data)

    @extend_schema(
        request=PairUpdateSerializer,
        responses={200: PairSerializer, 400: INVALID, 404: NOT_FOUND},
        summary="Edit a pair's FACT question, answer type, key or tolerance",
        description="The key is checked for its type: a multiple-choice key must be one of the "
        "options listed in the text, a free-text key must be a number, a ranking key lists at "
        "least two items in order.",
    )
    def patch(self, request, slug, code):
        chart_set = chartset_get(user=request.user, slug=slug)
        question = question_get(chart_set=chart_set, code=code)
        form = PairUpdateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        question_update(question=question, user=request.user, **form.validated_data)
        question = question_get(chart_set=chart_set, code=code)
        return Response(PairSerializer(question, context=self._context(request)).data)

    @extend_schema(
        responses={204: None, 400: INVALID, 404: NOT_FOUND}, summary="Delete a pair and its charts"
    )
    def delete(self, request, slug, code):
        question = question_get(chart_set=chartset_get(user=request.user, slug=slug), code=code)
        pair_delete(question=question, user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class ChartDetailView(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(responses={200: ChartSerializer, 404: NOT_FOUND}, summary="One chart")
    def get(self, request, slug, chart_id):
        chart = chart_get(chart_set=chartset_get(user=request.user, slug=slug), chart_id=chart_id)
        return Response(ChartSerializer(chart, context={"request": request}).data)


class ChartImageView(APIView):
    permission_classes = [IsResearcher]
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        request={"multipart/form-data": ImageUploadSerializer},
        responses={200: ChartSerializer, 400: INVALID, 404: NOT_FOUND},
        summary="Upload or replace a chart's image",
        description="The image is checked (type, size, pixel count, that it decodes) and stored "
        "under a name made from its content; the uploaded file name is never used as a path.",
    )
    def put(self, request, slug, chart_id):
        chart = chart_get(chart_set=chartset_get(user=request.user, slug=slug), chart_id=chart_id)
        form = ImageUploadSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        upload = form.validated_data["image"]
        chart_image_replace(
            chart=chart, data=upload.read(), user=request.user, filename=upload.name
        )
        return Response(ChartSerializer(chart, context={"request": request}).data)


class ChartSetImportView(APIView):
    permission_classes = [IsResearcher]
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        request={"multipart/form-data": ImportSerializer},
        responses={201: ImportResultSerializer, 202: QUEUED, 400: INVALID},
        summary="Import a benchmark (CHARTOM layout .zip, or a manifest with its images)",
        description="Creates the chart set, or updates it in place when the slug exists. Nothing "
        "is imported while any problem remains; a 400 lists every problem under its file, each "
        "message starting with its row. Uploads over 25 MB (or with background=true) run as a "
        "job: 202 with the job's id.",
    )
    def post(self, request):
        form = ImportSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        bundle, name = upload_bundle(
            file=data.get("file"), manifest=data.get("manifest"), images=data["images"]
        )
        options = {
            "slug": data["slug"] or None,
            "title": data["title"] or None,
            "prune": data["prune"],
            "source_name": name,
        }
        if data["background"] or len(bundle) > sync_max_bytes():
            job = chartset_import_enqueue(owner=request.user, data=bundle, **options)
            return _queued(request, job)
        try:
            result = chartset_import(owner=request.user, source=io.BytesIO(bundle), **options)
        except ImportRejected as rejected:
            detail = (
                f"The benchmark has {len(rejected.problems)} problem(s); nothing was imported. "
                "Each is listed under its file."
            )
            return Response(
                error_body(detail, rejected.as_errors()), status=status.HTTP_400_BAD_REQUEST
            )
        return Response(result.as_dict(), status=status.HTTP_201_CREATED)


class ChartSetGenerateView(APIView):
    permission_classes = [IsResearcher]
    parser_classes = [JSONParser]

    @extend_schema(
        request=SpecsSerializer,
        responses={201: GenerateResultSerializer, 202: QUEUED, 400: INVALID, 404: NOT_FOUND},
        summary="Render chart specs and save their pairs into the set",
        description="Each spec becomes a pair <id>_1 / <id>_2; a spec whose id exists updates "
        "that pair. More than 20 specs (or background=true) run as a job.",
    )
    def post(self, request, slug):
        chart_set = chartset_get(user=request.user, slug=slug)
        form = SpecsSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        specs = specs_parse(form.validated_data["specs"])
        if form.validated_data["background"] or len(specs) > SYNC_MAX_SPECS:
            return _queued(
                request,
                chartset_generate_enqueue(chart_set=chart_set, specs=specs, user=request.user),
            )
        summary = chartset_generate(chart_set=chart_set, specs=specs, user=request.user)
        return Response(
            {"chart_set": chart_set.slug, **summary.as_dict()}, status=status.HTTP_201_CREATED
        )


class GeneratorPreviewView(APIView):
    permission_classes = [IsResearcher]
    parser_classes = [JSONParser]

    @extend_schema(
        request=PreviewInputSerializer,
        responses={200: PreviewSerializer, 400: INVALID},
        summary="Render both versions of one spec without saving them",
    )
    def post(self, request):
        form = PreviewInputSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        specs = specs_parse(form.validated_data["spec"])
        if len(specs) != 1:
            return Response(
                error_body("Preview one spec at a time.", {"spec": ["Give one spec object."]}),
                status=status.HTTP_400_BAD_REQUEST,
            )
        preview = pair_preview(spec=specs[0])
        return Response(
            {
                "id": specs[0].id,
                "width": SIZE_PX[0],
                "height": SIZE_PX[1],
                "non_manipulated": base64.b64encode(preview.non_manipulated).decode("ascii"),
                "manipulated": base64.b64encode(preview.manipulated).decode("ascii"),
            }
        )


class ManipulationTypeListCreateView(generics.ListAPIView):
    """Every manipulation type: the built-in ones and those researchers added."""

    permission_classes = [IsResearcher]
    serializer_class = ManipulationTypeSerializer
    pagination_class = None

    def get_queryset(self):
        return manipulation_types()

    @extend_schema(
        request=ManipulationTypeCreateSerializer,
        responses={201: ManipulationTypeSerializer, 400: INVALID},
        summary="Add a manipulation type",
    )
    def post(self, request):
        form = ManipulationTypeCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        manipulation = manipulation_type_create(user=request.user, **form.validated_data)
        return Response(
            ManipulationTypeSerializer(manipulation).data, status=status.HTTP_201_CREATED
        )
