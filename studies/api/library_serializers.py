"""Shapes of the chart library API. Input serializers only check types; the services hold the rules."""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from core.api.input import InputSerializer
from studies.models import AnswerType, Chart, ChartGroup, ChartSet, ManipulationType, Question


def _absolute(request, url: str) -> str:
    return request.build_absolute_uri(url) if request else url


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()
    errors = serializers.DictField(child=serializers.ListField(child=serializers.CharField()))


class ManipulationTypeSerializer(serializers.ModelSerializer):
    class Meta:
        model = ManipulationType
        fields = ["slug", "label", "description", "vocabulary", "builtin"]
        read_only_fields = fields


class ManipulationTypeCreateSerializer(InputSerializer):
    label = serializers.CharField(max_length=100)
    description = serializers.CharField(required=False, allow_blank=True, default="")
    vocabulary = serializers.ListField(
        child=serializers.CharField(max_length=100), required=False, default=list
    )


class ChartSetSerializer(serializers.ModelSerializer):
    owner = serializers.CharField(source="owner.username", read_only=True)
    group_count = serializers.SerializerMethodField()
    pair_count = serializers.SerializerMethodField()
    url = serializers.SerializerMethodField()

    class Meta:
        model = ChartSet
        fields = [
            "slug", "title", "description", "source", "source_name", "owner",
            "group_count", "pair_count", "created_at", "updated_at", "url",
        ]  # fmt: skip
        read_only_fields = fields

    # Lists annotate the counts in one query; a set just created or changed counts here.
    def get_group_count(self, chart_set) -> int:
        count = getattr(chart_set, "group_count", None)
        return chart_set.groups.count() if count is None else count

    def get_pair_count(self, chart_set) -> int:
        count = getattr(chart_set, "pair_count", None)
        return chart_set.questions.count() if count is None else count

    @extend_schema_field(OpenApiTypes.URI)
    def get_url(self, chart_set) -> str:
        return _absolute(
            self.context.get("request"),
            reverse("api:library-chartset-detail", args=[chart_set.slug]),
        )


class ChartSetCreateSerializer(InputSerializer):
    title = serializers.CharField(max_length=200)
    slug = serializers.CharField(max_length=80, required=False, allow_blank=True, default="")
    description = serializers.CharField(required=False, allow_blank=True, default="")


class ChartSetUpdateSerializer(InputSerializer):
    title = serializers.CharField(max_length=200, required=False)
    description = serializers.CharField(required=False, allow_blank=True)


class ChartSerializer(serializers.ModelSerializer):
    manipulation = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    image_url = serializers.SerializerMethodField()

    class Meta:
        model = Chart
        fields = [
            "chart_id", "version", "manipulation", "image_url", "image_sha256", "width",
            "height", "alt_text", "original_name",
        ]  # fmt: skip
        read_only_fields = fields

    @extend_schema_field(OpenApiTypes.URI)
    def get_image_url(self, chart) -> str:
        return _absolute(self.context.get("request"), chart.image.url)


class PairSerializer(serializers.ModelSerializer):
    """A pair of the chart library: its FACT question (G7_Q1), the answer key and both charts
    (the non-manipulated _1 and the manipulated _2)."""

    id = serializers.IntegerField(
        read_only=True,
        help_text="The pair's id: what PUT /api/v1/studies/{slug}/pairs/ takes in `questions`.",
    )
    group = serializers.CharField(source="group.code", read_only=True)
    chart_type = serializers.CharField(source="group.chart_type", read_only=True)
    manipulation = serializers.CharField(source="group.manipulation.slug", read_only=True)
    mind_question = serializers.CharField(read_only=True)
    charts = ChartSerializer(many=True, read_only=True)

    class Meta:
        model = Question
        fields = [
            "id", "code", "group", "chart_type", "manipulation", "text", "stem", "answer_type",
            "options", "answer_key", "key_value", "tolerance", "mind_question", "charts",
            "spec", "updated_at",
        ]  # fmt: skip
        read_only_fields = fields


class PairUpdateSerializer(InputSerializer):
    text = serializers.CharField(required=False)
    answer_type = serializers.ChoiceField(choices=AnswerType.choices, required=False)
    answer_key = serializers.CharField(max_length=500, required=False)
    tolerance = serializers.FloatField(required=False)


class GroupSerializer(serializers.ModelSerializer):
    manipulation = serializers.CharField(source="manipulation.slug", read_only=True)
    manipulation_label = serializers.CharField(source="manipulation.label", read_only=True)
    pairs = serializers.SerializerMethodField()

    class Meta:
        model = ChartGroup
        fields = ["code", "chart_type", "manipulation", "manipulation_label", "pairs"]
        read_only_fields = fields

    def get_pairs(self, group) -> list[str]:
        return [q.code for q in getattr(group, "sorted_questions", [])]


class ImportSerializer(InputSerializer):
    file = serializers.FileField(
        required=False,
        help_text="A .zip of the benchmark (CHARTOM layout or a manifest with images).",
    )
    manifest = serializers.FileField(
        required=False,
        help_text="Instead of a .zip: manifest.csv or manifest.json, one row per chart.",
    )
    images = serializers.ListField(
        child=serializers.FileField(),
        required=False,
        default=list,
        help_text="With a manifest: the chart images, named as in its image column.",
    )
    slug = serializers.CharField(
        max_length=80,
        required=False,
        allow_blank=True,
        default="",
        help_text="The chart set to create or update (default: from the title or file name).",
    )
    title = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    prune = serializers.BooleanField(
        required=False, default=False, help_text="Remove pairs of the set missing from the upload."
    )
    background = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Import as a background job even when the upload is small.",
    )


class ImportResultSerializer(serializers.Serializer):
    chart_set = serializers.CharField()
    title = serializers.CharField()
    created_set = serializers.BooleanField()
    pairs = serializers.IntegerField()
    charts = serializers.IntegerField()
    seconds = serializers.FloatField()
    created = serializers.ListField(child=serializers.CharField())
    updated = serializers.ListField(child=serializers.CharField())
    unchanged = serializers.ListField(child=serializers.CharField())
    removed = serializers.ListField(child=serializers.CharField())
    kept = serializers.ListField(child=serializers.CharField())
    new_manipulations = serializers.ListField(child=serializers.CharField())
    files_written = serializers.IntegerField()


class JobQueuedSerializer(serializers.Serializer):
    job = serializers.IntegerField(help_text="The job's id; poll it at job_url.")
    state = serializers.CharField()
    job_url = serializers.URLField()


class SpecsSerializer(InputSerializer):
    specs = serializers.JSONField(help_text="One chart spec object or a list of them.")
    background = serializers.BooleanField(required=False, default=False)


class GenerateResultSerializer(serializers.Serializer):
    chart_set = serializers.CharField()
    created = serializers.ListField(child=serializers.CharField())
    updated = serializers.ListField(child=serializers.CharField())
    unchanged = serializers.ListField(child=serializers.CharField())
    new_manipulations = serializers.ListField(child=serializers.CharField())
    files_written = serializers.IntegerField()


class PreviewInputSerializer(InputSerializer):
    spec = serializers.JSONField(help_text="One chart spec object.")


class PreviewSerializer(serializers.Serializer):
    id = serializers.CharField()
    width = serializers.IntegerField()
    height = serializers.IntegerField()
    non_manipulated = serializers.CharField(help_text="PNG of <id>_1, base64.")
    manipulated = serializers.CharField(help_text="PNG of <id>_2, base64.")


class ImageUploadSerializer(InputSerializer):
    image = serializers.FileField(help_text="PNG, JPEG, GIF or WebP.")
