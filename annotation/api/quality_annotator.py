"""The annotator's qualification API: round status, starting a round, items, drafts, answers, review.

Nothing here returns gold unless the researcher turned on the review and the
round is finished; real work (and its control items) stays on the queue API.
"""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.language import ProjectLanguageMixin
from annotation.api.quality_serializers import (
    AnnotatorRoundsSerializer,
    AttemptSerializer,
    ReviewSerializer,
    RoundAnswerSerializer,
    RoundItemSerializer,
    RoundResultSerializer,
)
from annotation.api.serializers import image_src
from annotation.models import Project
from annotation.selectors import work_categories
from annotation.selectors.attempts import attempt_gold
from annotation.selectors.standing import annotator_rounds, round_result
from annotation.services.quality import (
    attempt_answer,
    attempt_draft,
    attempt_review,
    attempt_start,
    next_item_index,
    open_attempt,
)
from core.api.errors import error_body
from core.permissions import IsAnnotator

REFUSED = OpenApiResponse(
    description="Out of order, no attempts left, too early or not open (detail says which)."
)


def _joined(request, slug):
    return get_object_or_404(Project.objects.joined_by(request.user), slug=slug)


class QualificationView(APIView):
    permission_classes = [IsAnnotator]

    @extend_schema(responses={200: AnnotatorRoundsSerializer}, summary="Your qualification rounds")
    def get(self, request, slug):
        project = _joined(request, slug)
        return Response(
            AnnotatorRoundsSerializer(
                annotator_rounds(project=project, annotator=request.user)
            ).data
        )


class RoundStartView(ProjectLanguageMixin, APIView):
    permission_classes = [IsAnnotator]

    @extend_schema(request=None, responses={201: AttemptSerializer, 403: REFUSED, 409: REFUSED, 429: REFUSED},
                   summary="Start (or resume) a qualification round")  # fmt: skip
    def post(self, request, slug, position):
        project = _joined(request, slug)
        attempt = attempt_start(project=project, annotator=request.user, position=position)
        return Response(AttemptSerializer(attempt).data, status=status.HTTP_201_CREATED)


class RoundItemView(ProjectLanguageMixin, APIView):
    permission_classes = [IsAnnotator]

    @extend_schema(responses={200: RoundItemSerializer, 204: OpenApiResponse(description="Round finished."), 409: REFUSED},
                   summary="The next caption of your open round")  # fmt: skip
    def get(self, request, slug, position):
        project = _joined(request, slug)
        attempt = open_attempt(project=project, annotator=request.user, position=position)
        index = next_item_index(attempt)
        if index is None:
            return Response(status=status.HTTP_204_NO_CONTENT)
        golds = attempt_gold(attempt)
        item = golds[index - 1].item
        data = {
            "index": index,
            "count": len(golds),
            "sentences": item.sentences,
            "image": image_src(item, request),
            "draft": attempt.drafts.get(str(index)) or [[] for _ in item.sentences],
            "categories": work_categories(project),
        }
        return Response(RoundItemSerializer(data).data)


class RoundDraftView(ProjectLanguageMixin, APIView):
    permission_classes = [IsAnnotator]

    @extend_schema(request=RoundAnswerSerializer, responses={200: AttemptSerializer, 409: REFUSED},
                   summary="Save your labels so far on a round caption")  # fmt: skip
    def put(self, request, slug, position, index):
        project = _joined(request, slug)
        form = RoundAnswerSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        attempt = attempt_draft(project=project, annotator=request.user, position=position,
                                index=index, labels=form.validated_data["labels"])  # fmt: skip
        return Response(AttemptSerializer(attempt).data)


class RoundAnswerView(ProjectLanguageMixin, APIView):
    permission_classes = [IsAnnotator]

    @extend_schema(request=RoundAnswerSerializer, responses={201: AttemptSerializer, 409: REFUSED},
                   summary="Answer a round caption (the last answer scores the round)")  # fmt: skip
    def post(self, request, slug, position, index):
        project = _joined(request, slug)
        form = RoundAnswerSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        attempt = attempt_answer(project=project, annotator=request.user, position=position,
                                 index=index, labels=form.validated_data["labels"])  # fmt: skip
        return Response(AttemptSerializer(attempt).data, status=status.HTTP_201_CREATED)


class RoundReviewView(APIView):
    permission_classes = [IsAnnotator]

    @extend_schema(responses={200: ReviewSerializer, 403: OpenApiResponse(description="Review not offered or round not finished."), 404: OpenApiResponse(description="No such round.")},
                   summary="The researchers' labels of a finished round, if the project shows them")  # fmt: skip
    def get(self, request, slug, position):
        project = _joined(request, slug)
        attempt, golds = attempt_review(project=project, annotator=request.user, position=position)
        items = []
        for gold in golds:
            answer = attempt.answers.get(str(gold.pk)) or [[] for _ in gold.item.sentences]
            items.append({
                "explanation": gold.explanation,
                "sentences": [{"text": t, "expected": gold.labels[n], "yours": answer[n]}
                              for n, t in enumerate(gold.item.sentences)],
            })  # fmt: skip
        data = {"round": position, "passed": attempt.passed, "items": items}
        return Response(ReviewSerializer(data).data)


class RoundResultView(APIView):
    permission_classes = [IsAnnotator]

    @extend_schema(responses={200: RoundResultSerializer, 404: OpenApiResponse(description="No finished attempt.")},
                   summary="Your latest finished attempt at a round: score, and expected labels if shown")  # fmt: skip
    def get(self, request, slug, position):
        project = _joined(request, slug)
        names = {c.key: c.name for c in work_categories(project)}
        found = round_result(project=project, annotator=request.user, position=position,
                             names=names)  # fmt: skip
        if found is None:
            return Response(error_body("This round has no finished attempt of yours."), status=404)
        items = [
            {"index": n, "image": image_src(entry["item"], request),
             "explanation": entry["explanation"], "sentences": entry["sentences"]}
            for n, entry in enumerate(found["items"], start=1)
        ]  # fmt: skip
        data = {**found, "round": position, "attempt": found["attempt"].number,
                "pass_mark": found["round"].pass_mark, "rule": found["round"].rule,
                "items": items}  # fmt: skip
        return Response(RoundResultSerializer(data).data)
