"""The researcher's translations of a study's texts over the API, one language at a time."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api.errors import error_body
from core.api.parsers import JSONParser
from studies.api.study import StudyScoped
from studies.selectors.languages import language_names, translation_gaps
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


def _not_translated(language: str, further: list[str]) -> str:
    offered = ", ".join(language_names())
    if language not in language_names():
        start = f"'{language[:20]}' is not a supported language (supported: {offered})."
    else:
        start = f"The study is not offered in '{language}'."
    if further:
        return f"{start} The study's further languages: {', '.join(further)}."
    return f"{start} Add languages to the study's other_languages first (supported: {offered})."


class StudyTranslationView(StudyScoped, APIView):
    parser_classes = [JSONParser]

    @extend_schema(
        summary="A study's texts in one of its further languages",
        description="404 naming the study's further languages when the language is not one of "
        "them (the primary language's texts are the study's own fields).",
        responses={200: TranslationSerializer},
    )
    def get(self, request, slug, language):
        study = self.get_study()
        further = study.languages[1:]
        if language not in further:
            return Response(error_body(_not_translated(language, further)), status=404)
        return Response(_state(study, language))

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
