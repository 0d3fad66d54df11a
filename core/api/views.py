from django.http import FileResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import APIView

from core.api.errors import api_not_found
from core.api.serializers import (
    ApiIndexSerializer,
    ApiTokenCreatedSerializer,
    ApiTokenCreateSerializer,
    ApiTokenSerializer,
    JobSerializer,
    MeSerializer,
)
from core.models import ApiToken, Job
from core.permissions import IsResearcher
from core.services.tokens import api_token_create, api_token_revoke


class ApiIndexView(APIView):
    """Where a client starts: the schema, the documentation and the main collections.

    Anyone may read it. A token is checked as on every other endpoint, so a wrong key is
    refused here too, before any link is followed.
    """

    # The links are no secret, and a client without a key needs them to find out how to get one.
    permission_classes = [AllowAny]

    def get_view_name(self):
        return "Chartroom API"

    @extend_schema(
        tags=["index"],
        responses=ApiIndexSerializer,
        summary="Links to the schema, the documentation and the main collections",
    )
    def get(self, request):
        def link(name: str) -> str:
            return reverse(name, request=request)

        collections = {
            "me": "api:me",
            "studies": "api:study-list",
            "chart_sets": "api:library-chartset-list",
            "projects": "api:project-list",
            "annotator_projects": "api:annotator-project-list",
            "jobs": "api:job-list",
            "tokens": "api:token-list",
        }
        body = {
            "name": "Chartroom API",
            "version": "1",
            "authentication": "Send `Authorization: Token <key>`; researchers create keys on "
            "the tokens page. A signed-in browser session works too.",
            "schema": link("api-schema"),
            "docs": link("api-docs"),
            "redoc": link("api-redoc"),
            "tokens_page": link("tokens"),
            "collections": {key: link(name) for key, name in collections.items()},
        }
        return Response(ApiIndexSerializer(body).data)


class MeView(APIView):
    @extend_schema(responses=MeSerializer, summary="The signed-in user and their role")
    def get(self, request):
        return Response(MeSerializer(request.user).data)


class TokenListCreateView(generics.ListAPIView):
    permission_classes = [IsResearcher]
    serializer_class = ApiTokenSerializer

    def get_queryset(self):
        return ApiToken.objects.filter(user=self.request.user)

    @extend_schema(request=ApiTokenCreateSerializer, responses={201: ApiTokenCreatedSerializer})
    def post(self, request):
        form = ApiTokenCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        issued = api_token_create(user=request.user, name=form.validated_data["name"])
        data = ApiTokenSerializer(issued.token).data | {"key": issued.key}
        return Response(data, status=status.HTTP_201_CREATED)


class TokenRevokeView(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(request=None, responses={204: None}, summary="Revoke one of your API tokens")
    def delete(self, request, pk: int):
        if not api_token_revoke(user=request.user, token_id=pk):
            return api_not_found()
        return Response(status=status.HTTP_204_NO_CONTENT)


class JobListView(generics.ListAPIView):
    """Your own background jobs, newest first."""

    serializer_class = JobSerializer

    def get_queryset(self):
        return Job.objects.filter(created_by=self.request.user)


class JobDetailView(generics.RetrieveAPIView):
    serializer_class = JobSerializer

    def get_queryset(self):
        return Job.objects.filter(created_by=self.request.user)


class JobDownloadView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Download a finished job's file (an export); its type follows the format",
        responses={
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.BINARY, description="CSV exports."),
            (200, "application/zip"): OpenApiResponse(
                OpenApiTypes.BINARY, description="Zip exports (the HMI dataset)."
            ),
            (200, "application/json"): OpenApiResponse(
                OpenApiTypes.ANY, description="JSON exports (the HMI dataset as JSON)."
            ),
            (200, "application/octet-stream"): OpenApiResponse(
                OpenApiTypes.BINARY, description="Parquet exports."
            ),
        },
    )
    def get(self, request, pk: int):
        job = Job.objects.filter(created_by=request.user, pk=pk).first()
        if job is None or not job.result_file:
            return api_not_found()
        return FileResponse(
            job.result_file.open("rb"),
            as_attachment=True,
            filename=job.result_file.name.rsplit("/", 1)[-1],
        )
