"""Researchers' quality API: settings, gold (incl. gold mode saves), rounds, the funnel, decisions."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.quality_serializers import (
    DecisionSerializer,
    GoldFromReferenceResultSerializer,
    GoldFromReferenceSerializer,
    GoldInputSerializer,
    GoldSerializer,
    GrantSerializer,
    PolicySerializer,
    QualityOverviewSerializer,
    RoundInputSerializer,
    RoundSerializer,
)
from annotation.models import GoldItem, Item, Project, ProjectMember
from annotation.selectors.quality import funnel, quality_rows
from annotation.services.annotator_decisions import annotator_decision
from annotation.services.quality import (
    ACTIONS,
    attempt_grant,
    gold_from_reference,
    gold_set,
    policy_for,
    policy_update,
    round_create,
)
from core.api.errors import error_body
from core.permissions import IsResearcher


def _visible(request, slug):
    return get_object_or_404(Project.objects.visible_to(request.user), slug=slug)


class PolicyView(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(responses={200: PolicySerializer}, summary="Quality settings")
    def get(self, request, slug):
        return Response(PolicySerializer(policy_for(_visible(request, slug))).data)

    @extend_schema(
        request=PolicySerializer,
        responses={200: PolicySerializer},
        summary="Change quality settings",
    )
    def patch(self, request, slug):
        project = _visible(request, slug)
        form = PolicySerializer(policy_for(project), data=request.data, partial=True)
        form.is_valid(raise_exception=True)
        # A higher attempt limit re-opens the round for annotators who used every attempt.
        policy, _reopened = policy_update(
            project=project, changes=form.validated_data, actor=request.user
        )
        return Response(PolicySerializer(policy).data)


class GoldListView(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(responses={200: GoldSerializer(many=True)}, summary="Gold items")
    def get(self, request, slug):
        project = _visible(request, slug)
        return Response(GoldSerializer(project.gold_items.select_related("item"), many=True).data)


class GoldItemView(APIView):
    """Gold mode saves here: the page posts the labels as annotators' pages post theirs."""

    permission_classes = [IsResearcher]

    @extend_schema(
        request=GoldInputSerializer,
        responses={201: GoldSerializer},
        summary="Set an item's gold labels",
    )
    def post(self, request, slug, pk):
        project = _visible(request, slug)
        item = get_object_or_404(Item, project=project, pk=pk)
        form = GoldInputSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        gold = gold_set(project=project, item=item, labels=form.validated_data["labels"],
                        explanation=form.validated_data.get("explanation"), actor=request.user)  # fmt: skip
        return Response(GoldSerializer(gold).data, status=status.HTTP_201_CREATED)


class GoldDraftView(APIView):
    """Gold mode keeps nothing until the researcher saves; the page's autosave lands here."""

    permission_classes = [IsResearcher]

    @extend_schema(request=GoldInputSerializer, responses={200: OpenApiResponse(description="Accepted.")},
                   summary="Autosave in gold mode (nothing is stored)")  # fmt: skip
    def put(self, request, slug, pk):
        get_object_or_404(Item, project=_visible(request, slug), pk=pk)
        # Nothing is kept, but what would be refused on saving is refused here too.
        GoldInputSerializer(data=request.data).is_valid(raise_exception=True)
        return Response({})


class GoldFromReferenceView(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(request=GoldFromReferenceSerializer, responses={200: GoldFromReferenceResultSerializer},
                   summary="Mark imported reference labels as gold")  # fmt: skip
    def post(self, request, slug):
        project = _visible(request, slug)
        form = GoldFromReferenceSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        count = gold_from_reference(
            project=project, actor=request.user, item_ids=form.validated_data.get("items")
        )
        return Response({"marked": count})


class RoundListView(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(responses={200: RoundSerializer(many=True)}, summary="Qualification rounds")
    def get(self, request, slug):
        project = _visible(request, slug)
        return Response(
            RoundSerializer(project.rounds.prefetch_related("gold_items"), many=True).data
        )

    @extend_schema(
        request=RoundInputSerializer,
        responses={201: RoundSerializer},
        summary="Add a round at the end",
    )
    def post(self, request, slug):
        project = _visible(request, slug)
        form = RoundInputSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        golds = list(GoldItem.objects.filter(project=project, item_id__in=data["items"]))
        if len(golds) != len(set(data["items"])):
            return Response(error_body("Every item of a round needs gold labels.", {"items": ["Not all have gold."]}),
                            status=400)  # fmt: skip
        created = round_create(project=project, title=data["title"], gold_items=golds, rule=data["rule"],
                               pass_mark=data["pass_mark"], actor=request.user,
                               items_per_attempt=data.get("items_per_attempt"),
                               max_attempts=data.get("max_attempts"))  # fmt: skip
        return Response(RoundSerializer(created).data, status=status.HTTP_201_CREATED)


class QualityOverviewView(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(
        responses={200: QualityOverviewSerializer},
        summary="The funnel and each annotator's standing",
    )
    def get(self, request, slug):
        project = _visible(request, slug)
        data = {"funnel": funnel(project), "annotators": quality_rows(project)}
        return Response(QualityOverviewSerializer(data).data)


NOT_NOW = OpenApiResponse(
    description="Refused as things stand (detail says why): the annotator is not paused or "
    "blocked, already in that state, or still has an attempt left at the round."
)


class DecisionView(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(request=DecisionSerializer,
                   responses={200: QualityOverviewSerializer, 409: NOT_NOW},
                   summary=f"Decide about an annotator: {', '.join(ACTIONS)}")  # fmt: skip
    def post(self, request, slug, username, action):
        project = _visible(request, slug)
        member = get_object_or_404(ProjectMember, project=project, annotator__username=username)
        if action not in ACTIONS:
            return Response(error_body(f"Use one of: {', '.join(ACTIONS)}."), status=404)
        form = DecisionSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        annotator_decision(project=project, annotator=member.annotator, action=action,
                         reason=form.validated_data["reason"], actor=request.user)  # fmt: skip
        data = {"funnel": funnel(project), "annotators": quality_rows(project)}
        return Response(QualityOverviewSerializer(data).data)


class GrantView(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(request=GrantSerializer,
                   responses={200: QualityOverviewSerializer, 409: NOT_NOW},
                   summary="Allow an annotator another attempt at a round they failed")  # fmt: skip
    def post(self, request, slug, username):
        project = _visible(request, slug)
        member = get_object_or_404(ProjectMember, project=project, annotator__username=username)
        form = GrantSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        attempt_grant(project=project, annotator=member.annotator,
                      position=form.validated_data["round"],
                      reason=form.validated_data["reason"], actor=request.user)  # fmt: skip
        data = {"funnel": funnel(project), "annotators": quality_rows(project)}
        return Response(QualityOverviewSerializer(data).data)
