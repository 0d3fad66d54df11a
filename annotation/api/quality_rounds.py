"""Researchers' API for changing qualification rounds: edit, delete, move up or down.

Rounds are addressed by position, as annotators' round URLs are. The rules live in
annotation.services.quality.round_edits; a refusal is a 409 with its reason.
"""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.quality_serializers import (
    RoundDeletedSerializer,
    RoundMoveSerializer,
    RoundPatchSerializer,
    RoundSerializer,
)
from annotation.models import GoldItem, Project, QualificationRound
from annotation.services.quality.round_edits import round_delete, round_move, round_update
from core.api.errors import error_body
from core.permissions import IsResearcher

STARTED = OpenApiResponse(description="Refused: annotators have attempted the round.")
AT_EDGE_OR_STARTED = OpenApiResponse(
    description="Refused: the round is already first (or last), or annotators have attempted "
    "it or its neighbour."
)


def _round(request, slug: str, position: int) -> tuple[Project, QualificationRound]:
    project = get_object_or_404(Project.objects.visible_to(request.user), slug=slug)
    return project, get_object_or_404(QualificationRound, project=project, position=position)


def _rounds(project: Project):
    return project.rounds.order_by("position").prefetch_related("gold_items")


class RoundDetailView(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(responses={200: RoundSerializer}, summary="A qualification round")
    def get(self, request, slug, position):
        _, round_ = _round(request, slug, position)
        return Response(RoundSerializer(round_).data)

    @extend_schema(
        request=RoundPatchSerializer,
        responses={200: RoundSerializer, 409: STARTED},
        summary="Change a round (only its title, once annotators have attempted it)",
    )
    def patch(self, request, slug, position):
        project, round_ = _round(request, slug, position)
        form = RoundPatchSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = dict(form.validated_data)
        golds = None
        if "items" in data:
            items = set(data.pop("items"))
            golds = list(GoldItem.objects.filter(project=project, item_id__in=items))
            if len(golds) != len(items):
                return Response(error_body("Every item of a round needs gold labels.",
                                           {"items": ["Not all have gold."]}), status=400)  # fmt: skip
        changed = round_update(project=project, round_id=round_.pk, actor=request.user,
                               gold_items=golds, **data)  # fmt: skip
        return Response(RoundSerializer(changed).data)

    @extend_schema(
        responses={200: RoundDeletedSerializer, 409: STARTED},
        summary="Delete a round nobody has attempted; later rounds move up",
    )
    def delete(self, request, slug, position):
        project, round_ = _round(request, slug, position)
        done = round_delete(project=project, round_id=round_.pk, actor=request.user)
        return Response(RoundDeletedSerializer({**done, "rounds": _rounds(project)}).data)


class RoundMoveView(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(
        request=RoundMoveSerializer,
        responses={200: RoundSerializer(many=True), 409: AT_EDGE_OR_STARTED},
        summary="Swap a round with the one above (up) or below (down)",
    )
    def post(self, request, slug, position):
        project, round_ = _round(request, slug, position)
        form = RoundMoveSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        round_move(project=project, round_id=round_.pk, actor=request.user,
                   direction=form.validated_data["direction"])  # fmt: skip
        return Response(RoundSerializer(_rounds(project), many=True).data)
