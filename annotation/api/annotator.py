"""The annotator's API: their projects, the next item, drafts, submits, skips, progress.

Every endpoint reads through annotation.selectors.work and writes through the queue
services, which only ever hand out the caller's own assignments.
"""

import time

from django.http import Http404
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.annotator_serializers import (
    AnnotatorProgressSerializer,
    AssignmentStateSerializer,
    DraftInputSerializer,
    DraftSavedSerializer,
    JoinedProjectSerializer,
    LabelSubmitResultSerializer,
    SkipSerializer,
    SubmitInputSerializer,
    SubmittedSerializer,
    WorkAssignmentSerializer,
)
from annotation.api.language import ProjectLanguageMixin
from annotation.api.work_bodies import submitted_next_body, work_assignment_body
from annotation.models import Project
from annotation.selectors import annotator_assignment, annotator_progress, work_categories
from annotation.services import (
    assignment_draft_save,
    assignment_next,
    assignment_skip,
    assignment_submit,
    assignment_submit_next,
    assignment_submit_repeat,
)
from annotation.services.queue import QueueError
from core.permissions import IsAnnotator

CONFLICT = OpenApiResponse(description="The lease expired, was released, or was already submitted.")
NOT_YOURS = OpenApiResponse(description="No such assignment of yours.")


def _timed(response, started: float):
    """Say the time the view took (Server-Timing), for benches and browser tools."""
    response["Server-Timing"] = f"app;dur={(time.perf_counter() - started) * 1000:.1f}"
    return response


def _joined(request, slug):
    return get_object_or_404(Project.objects.joined_by(request.user), slug=slug)


class JoinedProjectListView(generics.ListAPIView):
    """The projects you joined as an annotator."""

    permission_classes = [IsAnnotator]
    serializer_class = JoinedProjectSerializer

    def get_queryset(self):
        return Project.objects.joined_by(self.request.user)


class NextItemView(ProjectLanguageMixin, APIView):
    permission_classes = [IsAnnotator]

    @extend_schema(
        request=None,
        responses={
            200: WorkAssignmentSerializer,
            204: OpenApiResponse(description="Nothing is left for you in this project."),
            404: OpenApiResponse(description="Not a project you joined."),
        },
        summary="Your open item, or lease the next one",
    )
    def post(self, request, slug):
        # The queue itself refuses non-members (404), so no separate membership query here.
        started = time.perf_counter()
        project = self.project  # read by ProjectLanguageMixin
        if project is None:
            raise Http404("No such project.")
        assignment = assignment_next(project=project, annotator=request.user)
        if assignment is None:
            return _timed(Response(status=status.HTTP_204_NO_CONTENT), started)
        body = work_assignment_body(assignment, work_categories(project), request)
        return _timed(Response(body), started)


class AssignmentView(APIView):
    permission_classes = [IsAnnotator]

    @extend_schema(
        responses={200: WorkAssignmentSerializer, 404: NOT_YOURS},
        summary="One of your assignments",
    )
    def get(self, request, pk):
        assignment = annotator_assignment(annotator=request.user, pk=pk)
        context = {"request": request, "categories": work_categories(assignment.project)}
        return Response(WorkAssignmentSerializer(assignment, context=context).data)


class DraftView(ProjectLanguageMixin, APIView):
    permission_classes = [IsAnnotator]

    @extend_schema(
        request=DraftInputSerializer,
        responses={200: DraftSavedSerializer, 404: NOT_YOURS, 409: CONFLICT},
        summary="Save your labels so far (a reload restores them)",
    )
    def put(self, request, pk):
        form = DraftInputSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        assignment = assignment_draft_save(
            assignment_id=pk,
            annotator=request.user,
            labels=form.validated_data.get("labels"),
            active_seconds=form.validated_data.get("active_seconds"),
        )
        return Response(DraftSavedSerializer(assignment).data)


class SubmitView(ProjectLanguageMixin, APIView):
    permission_classes = [IsAnnotator]

    @extend_schema(
        request=SubmitInputSerializer,
        responses={
            201: LabelSubmitResultSerializer,
            200: OpenApiResponse(
                LabelSubmitResultSerializer,
                description="A repeated submit with the same labels (a retry): the stored label "
                "set, as the first answer gave it (with `next`, the next item too); nothing "
                "stored twice.",
            ),
            404: NOT_YOURS,
            409: CONFLICT,
        },
        summary="Submit your labels for the item (and, with `next`, get your next item)",
        description="With `next: true` the 201 response is the label set plus `next` and `next_refused`.",
    )
    def post(self, request, pk):
        form = SubmitInputSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        arguments = {
            "assignment_id": pk,
            "annotator": request.user,
            "labels": data["labels"],
            "active_seconds": data.get("active_seconds"),
        }
        if not data["next"]:
            try:
                label_set, code = assignment_submit(**arguments), status.HTTP_201_CREATED
            except QueueError:
                # A retry of a submit that was stored answers as the first did, as with `next`.
                label_set = assignment_submit_repeat(
                    assignment_id=pk, annotator=request.user, labels=data["labels"]
                )
                if label_set is None:
                    raise
                code = status.HTTP_200_OK
            return Response(SubmittedSerializer(label_set).data, status=code)
        started = time.perf_counter()
        submitted = assignment_submit_next(**arguments)
        body = submitted_next_body(submitted, request)
        code = status.HTTP_200_OK if submitted.replayed else status.HTTP_201_CREATED
        return _timed(Response(body, status=code), started)


class SkipView(ProjectLanguageMixin, APIView):
    permission_classes = [IsAnnotator]

    @extend_schema(
        request=SkipSerializer,
        responses={200: AssignmentStateSerializer, 404: NOT_YOURS, 409: CONFLICT},
        summary="Skip the item, with a reason",
    )
    def post(self, request, pk):
        form = SkipSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        assignment = assignment_skip(
            assignment_id=pk, annotator=request.user, reason=form.validated_data["reason"]
        )
        return Response(AssignmentStateSerializer(assignment).data)


class AnnotatorProgressView(APIView):
    permission_classes = [IsAnnotator]

    @extend_schema(
        responses={200: AnnotatorProgressSerializer},
        summary="Your progress and estimated hourly pay in a project",
    )
    def get(self, request, slug):
        project = _joined(request, slug)
        progress = annotator_progress(project=project, annotator=request.user)
        return Response(AnnotatorProgressSerializer(progress).data)
