"""The researcher's translations of a study's texts over the API, one language at a time."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api.parsers import JSONParser
from studies.api.study import StudyScoped
from studies.selectors.languages import translation_gaps
from studies.services import study as setup

TRANSLATION_HELP = (
    'One language\'s texts: {"consent_text": "...", "instructions_text": "...", '
    '"debrief_text": "...", "title": "...", "description": "...", '
    '"questions": {"<question id>": {"text": "...", "options": ["...", ...]}}, '
    '"checks": {"<attention check id>": {"prompt": "...", "options": ["...", ...]}}}. '
    "Question ids are those of GET .../pairs/; options are given in the original order "
    "and number. A text left out shows in the primary language. PUT replaces the "
    "language's texts as a whole."
)


class TranslationSerializer(serializers.Serializer):
    language = serializers.CharField()
    texts = serializers.JSONField(help_text=TRANSLATION_HELP)
    missing = serializers.ListField(
        child=serializers.CharField(), help_text="The texts this language still lacks."
    )


def _state(study, language: str) -> dict:
    return {
        "language": language,
        "texts": (study.translations or {}).get(language, {}),
        "missing": [g.message for g in translation_gaps(study) if g.language == language],
    }


class StudyTranslationView(StudyScoped, APIView):
    parser_classes = [JSONParser]

    @extend_schema(
        summary="A study's texts in one of its further languages",
        responses={200: TranslationSerializer},
    )
    def get(self, request, slug, language):
        return Response(_state(self.get_study(), language))

    @extend_schema(
        summary="Replace a study's texts in one of its further languages",
        description=TRANSLATION_HELP,
        request=OpenApiTypes.OBJECT,
        responses={200: TranslationSerializer, 400: OpenApiResponse(description="Not valid.")},
    )
    def put(self, request, slug, language):
        study = self.get_study()
        setup.study_translation_set(
            study=study, actor=request.user, language=language, texts=request.data
        )
        return Response(_state(study, language))
