"""Shapes of the annotators' annotation API (annotation.api.annotator): an annotator's own
projects, assignments and progress, never a researcher's view of them."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from annotation.api.serializers import ASSIGNMENT_STATES, LabelsField, image_src, labels_field
from annotation.models import Assignment, Category, LabelSet, Project
from core.api.input import InputSerializer


class StandingSerializer(serializers.Serializer):
    state = serializers.CharField(
        help_text="invited, started, failed, qualified, eliminated, paused or blocked"
    )
    state_label = serializers.CharField(help_text="The state in words, for display.")
    headline = serializers.CharField(help_text="The home page's line for this state.")
    left_for_you = serializers.IntegerField(source="progress.left_for_you")


class JoinedProjectSerializer(serializers.ModelSerializer):
    """What an annotator may know about a project: no invite code, no owner details."""

    standing = serializers.SerializerMethodField()

    class Meta:
        model = Project
        fields = ["id", "title", "slug", "description", "standing"]
        read_only_fields = fields

    @extend_schema_field(StandingSerializer)
    def get_standing(self, project):
        from annotation.selectors.attempts import STANDING_LABELS
        from annotation.selectors.standing import annotator_card

        card = annotator_card(project=project, annotator=self.context["request"].user)
        return StandingSerializer({"state": card.state, "state_label": STANDING_LABELS[card.state],
                                   "headline": card.headline, "progress": card.progress}).data  # fmt: skip


class WorkCategorySerializer(serializers.ModelSerializer):
    class Meta:
        model = Category
        fields = ["key", "name", "definition", "example", "shortcut"]
        read_only_fields = fields


class WorkItemSerializer(serializers.Serializer):
    sentences = serializers.ListField(child=serializers.CharField())
    image = serializers.SerializerMethodField()

    @extend_schema_field(OpenApiTypes.URI)
    def get_image(self, item) -> str:
        return image_src(item, self.context.get("request"))


class WorkAssignmentSerializer(serializers.ModelSerializer):
    """An annotator's own assignment: the caption and chart, their own draft, nothing else."""

    project = serializers.CharField(source="project.slug", read_only=True)
    state = serializers.CharField(read_only=True, help_text=ASSIGNMENT_STATES)
    item = WorkItemSerializer(read_only=True)
    categories = serializers.SerializerMethodField()

    class Meta:
        model = Assignment
        fields = [
            "id",
            "project",
            "state",
            "leased_at",
            "expires_at",
            "item",
            "categories",
            "draft",
            "active_seconds",
        ]
        read_only_fields = fields

    @extend_schema_field(WorkCategorySerializer(many=True))
    def get_categories(self, assignment):
        return WorkCategorySerializer(self.context["categories"], many=True).data


class LabelsInputSerializer(InputSerializer):
    labels = LabelsField
    active_seconds = serializers.FloatField(
        required=False, min_value=0, help_text="Active time on the item so far, in seconds."
    )


class DraftInputSerializer(InputSerializer):
    labels = labels_field(
        required=False,
        help_text="One list of category keys per sentence. Leave it out to record only "
        "`active_seconds` and keep the saved labels: a page whose labels nobody changed "
        "(a second tab) then never overwrites the draft another tab saved.",
    )
    active_seconds = serializers.FloatField(
        required=False, min_value=0, help_text="Active time on the item so far, in seconds."
    )

    def validate(self, attrs):
        if "labels" not in attrs and "active_seconds" not in attrs:
            raise serializers.ValidationError(
                {"labels": ["Give the labels, active_seconds, or both."]}
            )
        return attrs


class SubmitInputSerializer(LabelsInputSerializer):
    next = serializers.BooleanField(
        required=False,
        default=False,
        help_text=(
            "Also lease your next item and return it in `next`, in the same request. "
            "Repeating the request with the same labels answers the same way, never twice."
        ),
    )


class RefusalSerializer(serializers.Serializer):
    status = serializers.IntegerField()
    code = serializers.CharField()
    detail = serializers.CharField(source="message")


class SubmittedNextSerializer(serializers.Serializer):
    """A stored label set and, when asked for, the next lease in the same response."""

    id = serializers.IntegerField(source="label_set.id")
    labels = serializers.JSONField(source="label_set.labels")
    active_seconds = serializers.FloatField(source="label_set.active_seconds")
    submitted_at = serializers.DateTimeField(source="label_set.submitted_at")
    next = serializers.SerializerMethodField(
        help_text="Your next item, as the next endpoint gives it; null when none was leased."
    )
    next_refused = RefusalSerializer(
        source="refusal",
        allow_null=True,
        help_text="Why no next item was leased (paused, blocked, busy); null otherwise.",
    )

    @extend_schema_field(WorkAssignmentSerializer(allow_null=True))
    def get_next(self, submitted):
        if submitted.next is None:
            return None
        context = {**self.context, "categories": submitted.categories}
        return WorkAssignmentSerializer(submitted.next, context=context).data


class DraftSavedSerializer(serializers.ModelSerializer):
    class Meta:
        model = Assignment
        fields = ["id", "draft", "draft_saved_at", "active_seconds", "expires_at"]
        read_only_fields = fields


class SubmittedSerializer(serializers.ModelSerializer):
    class Meta:
        model = LabelSet
        fields = ["id", "labels", "active_seconds", "submitted_at"]
        read_only_fields = fields


class SkipSerializer(InputSerializer):
    reason = serializers.CharField(max_length=1000, allow_blank=True)


class AssignmentStateSerializer(serializers.ModelSerializer):
    state = serializers.CharField(read_only=True, help_text=ASSIGNMENT_STATES)

    class Meta:
        model = Assignment
        fields = ["id", "state", "skip_reason"]
        read_only_fields = fields


class AnnotatorProgressSerializer(serializers.Serializer):
    done = serializers.IntegerField()
    assigned = serializers.IntegerField()
    skipped = serializers.IntegerField()
    in_hand = serializers.IntegerField()
    left_for_you = serializers.IntegerField()
    active_seconds = serializers.FloatField()
    earned = serializers.DecimalField(max_digits=12, decimal_places=2)
    hourly = serializers.DecimalField(max_digits=12, decimal_places=2, allow_null=True)
    target_hourly = serializers.DecimalField(max_digits=8, decimal_places=2)
    currency = serializers.CharField()


class LabelSubmitResultSerializer(SubmittedSerializer):
    """What a submit of labels answers, for 200 and 201 alike: the label set and, when the
    request asked for the next item, next and next_refused (absent otherwise)."""

    next = WorkAssignmentSerializer(
        allow_null=True,
        required=False,
        help_text="With `next: true`: your next item, as the next endpoint gives it; null when "
        "none was leased.",
    )
    next_refused = RefusalSerializer(
        allow_null=True,
        required=False,
        help_text="With `next: true`: why no next item was leased (paused, blocked, busy); "
        "null otherwise.",
    )

    class Meta(SubmittedSerializer.Meta):
        fields = [*SubmittedSerializer.Meta.fields, "next", "next_refused"]
        read_only_fields = SubmittedSerializer.Meta.fields
