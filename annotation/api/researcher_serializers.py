"""Shapes of the researchers' annotation API (annotation.api.researcher).

Researcher and annotator serializers are kept apart: nothing an annotator's endpoint returns
is built from a researcher serializer (those are in annotator_serializers)."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from annotation.api.serializers import ASSIGNMENT_STATES, image_src
from annotation.models import Assignment, Category, ImportBatch, Item, LabelSet, Project
from annotation.services.projects import PROJECT_SETTINGS
from core.api.input import InputModelSerializer, InputSerializer


class ProjectSerializer(InputModelSerializer):
    owner = serializers.CharField(source="owner.username", read_only=True)
    # No length limit here: the service says what a currency code is (core.currencies).
    currency = serializers.CharField(
        required=False,
        help_text="ISO 4217 code of the pay_per_item and target_hourly_rate amounts, such as "
        "USD (the default), EUR or GBP.",
    )

    class Meta:
        model = Project
        read_only_fields = ["id", "slug", "owner", "invite_code", "created_at"]
        # What a researcher may change is the service's list, so the two cannot drift apart.
        fields = [*read_only_fields, *PROJECT_SETTINGS]


class CategorySerializer(InputModelSerializer):
    class Meta:
        model = Category
        fields = [
            "key", "name", "definition", "example", "shortcut", "is_factual", "position",
            "translations",
        ]  # fmt: skip
        read_only_fields = ["position"]


class CategoryUpdateSerializer(InputModelSerializer):
    class Meta:
        model = Category
        fields = [
            "name", "definition", "example", "shortcut", "is_factual", "position", "translations",
        ]  # fmt: skip


class ItemSerializer(serializers.ModelSerializer):
    image = serializers.SerializerMethodField()
    reference_labels = serializers.SerializerMethodField()
    annotators = serializers.SerializerMethodField()

    class Meta:
        model = Item
        fields = [
            "id",
            "external_id",
            "sentences",
            "image",
            "model",
            "dataset",
            "split",
            "submitted_count",
            "filled_count",
            "reference_labels",
            "annotators",
        ]
        read_only_fields = fields

    @extend_schema_field(OpenApiTypes.URI)
    def get_image(self, item) -> str:
        return image_src(item, self.context.get("request"))

    @extend_schema_field(
        serializers.ListField(
            child=serializers.ListField(child=serializers.CharField()), allow_null=True
        )
    )
    def get_reference_labels(self, item):
        reference = getattr(item, "reference", None)
        return reference.labels if reference else None

    @extend_schema_field(serializers.ListField(child=serializers.DictField()))
    def get_annotators(self, item):
        return [
            {"annotator": a.annotator.username, "state": a.state} for a in item.assignments.all()
        ]


class ItemQuerySerializer(InputSerializer):
    split = serializers.CharField(
        required=False, allow_blank=True, help_text="Only this split (LVLM, LLM, FT ...)."
    )
    status = serializers.ChoiceField(
        choices=["open", "in_progress", "complete"], required=False, allow_blank=True
    )
    # The pagination's own parameters, checked there (core.api.pagination).
    page = serializers.CharField(required=False)
    page_size = serializers.CharField(required=False)


class LabelSetSerializer(serializers.ModelSerializer):
    annotator = serializers.CharField(source="annotator.username", read_only=True)

    class Meta:
        model = LabelSet
        fields = ["id", "annotator", "labels", "active_seconds", "submitted_at"]
        read_only_fields = fields


class ItemDetailSerializer(ItemSerializer):
    label_sets = LabelSetSerializer(many=True, read_only=True)

    class Meta(ItemSerializer.Meta):
        fields = [*ItemSerializer.Meta.fields, "label_sets"]
        read_only_fields = fields


class ImportCreateSerializer(InputSerializer):
    file = serializers.FileField(help_text="CHOCOLATE JSON, JSON Lines or CSV.")
    images = serializers.FileField(required=False, help_text="A zip of chart images.")
    format = serializers.ChoiceField(choices=["json", "jsonl", "csv"], required=False)


class ImportQueuedSerializer(serializers.Serializer):
    job = serializers.IntegerField(help_text="The background job importing the upload.")
    state = serializers.CharField(help_text="queued, running, done or failed")
    url = serializers.URLField(
        help_text="Poll this job: its result holds the ImportBatch id (batch) or the problems."
    )


class ImportBatchSerializer(serializers.ModelSerializer):
    state = serializers.CharField(read_only=True, help_text="done or rejected")
    created_by = serializers.CharField(source="created_by.username", default=None, read_only=True)

    class Meta:
        model = ImportBatch
        fields = [
            "id",
            "filename",
            "images_filename",
            "format",
            "state",
            "records",
            "created_items",
            "duplicates",
            "existing",
            "problems",
            "seconds",
            "created_by",
            "created_at",
        ]
        read_only_fields = fields


class AnnotatorRowSerializer(serializers.Serializer):
    username = serializers.CharField()
    joined_at = serializers.DateTimeField()
    done = serializers.IntegerField()
    skipped = serializers.IntegerField()
    expired = serializers.IntegerField()
    in_hand = serializers.IntegerField()
    active_seconds = serializers.FloatField()
    mean_seconds = serializers.FloatField(allow_null=True)


class ProjectProgressSerializer(serializers.Serializer):
    items = serializers.IntegerField()
    complete = serializers.IntegerField()
    label_sets = serializers.IntegerField()
    needed = serializers.IntegerField(
        help_text="Label sets committed: k per item, or with adaptive overlap k_min per item "
        "plus one per disputed item."
    )
    possible = serializers.IntegerField(
        help_text="Label sets the overlap policy may ask for at most (k_max for every item "
        "not yet settled); equals needed under fixed k."
    )
    growing = serializers.IntegerField(help_text="Items that may still get more label sets.")
    pay_committed = serializers.DecimalField(max_digits=12, decimal_places=2)
    pay_possible = serializers.DecimalField(max_digits=12, decimal_places=2)
    open_leases = serializers.IntegerField()
    members = serializers.IntegerField()
    annotators = AnnotatorRowSerializer(many=True)


class LeaseSerializer(serializers.ModelSerializer):
    state = serializers.CharField(read_only=True, help_text=ASSIGNMENT_STATES)
    annotator = serializers.CharField(source="annotator.username", read_only=True)
    item = serializers.IntegerField(source="item_id", read_only=True)
    external_id = serializers.CharField(source="item.external_id", read_only=True)

    class Meta:
        model = Assignment
        fields = [
            "id",
            "item",
            "external_id",
            "annotator",
            "state",
            "leased_at",
            "expires_at",
            "active_seconds",
        ]
        read_only_fields = fields


class ReleaseSerializer(InputSerializer):
    reason = serializers.CharField(required=False, allow_blank=True, max_length=500)


class ReassignSerializer(InputSerializer):
    annotator = serializers.CharField(help_text="Username of a member of the project.")
    reason = serializers.CharField(required=False, allow_blank=True, max_length=500)
