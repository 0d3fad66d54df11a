"""The researcher's annotation API: projects, categories, imports, items, progress, leases."""

from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.researcher_serializers import (
    CategorySerializer,
    CategoryUpdateSerializer,
    ImportBatchSerializer,
    ImportCreateSerializer,
    ImportQueuedSerializer,
    ItemDetailSerializer,
    ItemQuerySerializer,
    ItemSerializer,
    LeaseSerializer,
    ProjectProgressSerializer,
    ProjectSerializer,
    ReassignSerializer,
    ReleaseSerializer,
)
from annotation.models import Category, ImportBatch, Project
from annotation.selectors import (
    annotator_rows,
    item_page,
    member_by_username,
    open_leases,
    project_overview,
    researcher_item,
)
from annotation.services import (
    assignment_reassign,
    assignment_release,
    category_create,
    category_delete,
    category_update,
    project_create,
    project_update,
)
from annotation.services.import_jobs import captions_import_upload
from core.models import Job
from core.permissions import IsResearcher


def _project(request, slug) -> Project:
    return get_object_or_404(Project.objects.visible_to(request.user), slug=slug)


class ProjectListCreateView(generics.ListCreateAPIView):
    """Annotation projects you own or that were shared with you; POST creates one."""

    permission_classes = [IsResearcher]
    serializer_class = ProjectSerializer

    def get_queryset(self):
        return Project.objects.visible_to(self.request.user).select_related("owner")

    def perform_create(self, serializer):
        serializer.instance = project_create(owner=self.request.user, **serializer.validated_data)


class ProjectDetailView(generics.RetrieveUpdateAPIView):
    """A project and its settings; PATCH changes settings (guidelines, k, lease time, split map, pay)."""

    permission_classes = [IsResearcher]
    serializer_class = ProjectSerializer
    lookup_field = "slug"
    http_method_names = ["get", "patch", "head", "options"]

    def get_queryset(self):
        return Project.objects.visible_to(self.request.user).select_related("owner")

    def perform_update(self, serializer):
        serializer.instance = project_update(
            project=serializer.instance, actor=self.request.user, **serializer.validated_data
        )


class CategoryListCreateView(generics.ListCreateAPIView):
    """The project's error categories in display order; POST adds one."""

    permission_classes = [IsResearcher]
    serializer_class = CategorySerializer
    pagination_class = None

    def get_queryset(self):
        return Category.objects.filter(project=_project(self.request, self.kwargs["slug"]))

    def perform_create(self, serializer):
        project = _project(self.request, self.kwargs["slug"])
        serializer.instance = category_create(project=project, **serializer.validated_data)


class CategoryDetailView(generics.GenericAPIView):
    permission_classes = [IsResearcher]
    serializer_class = CategoryUpdateSerializer

    def _category(self, request, slug, key):
        return get_object_or_404(Category, project=_project(request, slug), key=key)

    @extend_schema(request=CategoryUpdateSerializer, responses=CategorySerializer)
    def patch(self, request, slug, key):
        category = self._category(request, slug, key)
        form = CategoryUpdateSerializer(category, data=request.data, partial=True)
        form.is_valid(raise_exception=True)
        category = category_update(category=category, **form.validated_data)
        return Response(CategorySerializer(category).data)

    @extend_schema(request=None, responses={204: None})
    def delete(self, request, slug, key):
        category_delete(category=self._category(request, slug, key))
        return Response(status=status.HTTP_204_NO_CONTENT)


class ImportListCreateView(generics.ListAPIView):
    """Imports into the project, newest first; POST uploads a caption file (and a zip of images).

    A large upload (over 5 MB by default, file and images together) is imported by a
    background job: 202 with the job's id and URL. The job's result holds the import's id
    (`batch`) or the problems, each with its file and row.
    """

    permission_classes = [IsResearcher]
    serializer_class = ImportBatchSerializer
    parser_classes = [MultiPartParser, FormParser]

    def get_queryset(self):
        return ImportBatch.objects.filter(project=_project(self.request, self.kwargs["slug"]))

    @extend_schema(
        request={"multipart/form-data": ImportCreateSerializer},
        responses={
            201: ImportBatchSerializer,
            202: OpenApiResponse(
                ImportQueuedSerializer, description="A large upload, imported by a job."
            ),
            400: OpenApiResponse(description="Rejected: each problem with its record and reason."),
        },
        summary="Import captions: all records or none",
    )
    def post(self, request, slug):
        project = _project(request, slug)
        form = ImportCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        upload = form.validated_data["file"]
        images = form.validated_data.get("images")
        result = captions_import_upload(
            project=project,
            user=request.user,
            upload=upload,
            images=images,
            format=form.validated_data.get("format"),
        )
        if isinstance(result, Job):
            url = request.build_absolute_uri(reverse("api:job-detail", args=[result.pk]))
            body = {"job": result.pk, "state": result.state, "url": url}
            return Response(body, status=status.HTTP_202_ACCEPTED)
        return Response(ImportBatchSerializer(result.batch).data, status=status.HTTP_201_CREATED)


class ItemListView(generics.ListAPIView):
    """Per-item progress, with reference labels (researchers only)."""

    query_parameters = ("split", "status")  # read by ItemQuerySerializer
    permission_classes = [IsResearcher]
    serializer_class = ItemSerializer

    @extend_schema(
        parameters=[
            OpenApiParameter("split", str, description="Only this split (LVLM, LLM, FT ...)."),
            OpenApiParameter(
                "status", str, enum=["open", "in_progress", "complete"], description="Filter."
            ),
        ]
    )
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        project = _project(self.request, self.kwargs["slug"])
        query = ItemQuerySerializer(data=self.request.query_params)
        query.is_valid(raise_exception=True)
        return item_page(
            project,
            split=query.validated_data.get("split", ""),
            status=query.validated_data.get("status", ""),
        )


class ItemDetailView(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(responses=ItemDetailSerializer, summary="An item with every label set")
    def get(self, request, slug, pk):
        item = researcher_item(_project(request, slug), pk)
        return Response(ItemDetailSerializer(item, context={"request": request}).data)


class ProgressView(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(
        responses=ProjectProgressSerializer, summary="Overall and per-annotator progress"
    )
    def get(self, request, slug):
        project = _project(request, slug)
        overview = project_overview(project)
        data = {
            "items": overview.items,
            "complete": overview.complete,
            "label_sets": overview.label_sets,
            "needed": overview.needed,
            "possible": overview.possible,
            "growing": overview.growing,
            "pay_committed": overview.pay_committed,
            "pay_possible": overview.pay_possible,
            "open_leases": overview.open_leases,
            "members": overview.members,
            "annotators": annotator_rows(project),
        }
        return Response(ProjectProgressSerializer(data).data)


class LeaseListView(generics.ListAPIView):
    """Open leases, soonest to expire first."""

    permission_classes = [IsResearcher]
    serializer_class = LeaseSerializer

    def get_queryset(self):
        return open_leases(_project(self.request, self.kwargs["slug"]))


class LeaseReleaseView(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(
        request=ReleaseSerializer,
        responses={200: LeaseSerializer, 404: OpenApiResponse(), 409: OpenApiResponse()},
        summary="Release an open lease: the item goes back to the pool",
    )
    def post(self, request, slug, pk):
        project = _project(request, slug)
        form = ReleaseSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        assignment = assignment_release(
            assignment_id=pk,
            project=project,
            actor=request.user,
            reason=form.validated_data.get("reason", ""),
        )
        return Response(LeaseSerializer(assignment).data)


class LeaseReassignView(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(
        request=ReassignSerializer,
        responses={200: LeaseSerializer, 400: OpenApiResponse(), 409: OpenApiResponse()},
        summary="Move an open lease to another annotator of the project",
    )
    def post(self, request, slug, pk):
        project = _project(request, slug)
        form = ReassignSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        target = member_by_username(project=project, username=form.validated_data["annotator"])
        if target is None:
            raise ValidationError(
                {"annotator": ["No annotator of this project has this username."]}
            )
        assignment = assignment_reassign(
            assignment_id=pk,
            project=project,
            to_annotator=target,
            actor=request.user,
            reason=form.validated_data.get("reason", ""),
        )
        return Response(LeaseSerializer(assignment).data)
