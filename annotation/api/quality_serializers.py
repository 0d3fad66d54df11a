"""Serializers for the quality API. Annotator-facing ones never carry gold or control status."""

from rest_framework import serializers

from annotation.api.annotator_serializers import LabelsInputSerializer, WorkCategorySerializer
from annotation.models import GoldItem, QualificationRound, QualityPolicy
from core.api.input import InputModelSerializer, InputSerializer
from core.api.serializers import MAX_ID


class RoundStatusSerializer(serializers.Serializer):
    position = serializers.IntegerField()
    title = serializers.CharField()
    items = serializers.IntegerField(help_text="Captions one attempt asks.")
    status = serializers.CharField(
        help_text="passed, failed (retry_at says when the next attempt opens, if one is left), "
        "open, available or locked"
    )
    attempts_used = serializers.IntegerField()
    attempts_allowed = serializers.IntegerField()
    attempts_left = serializers.IntegerField()
    retry_at = serializers.DateTimeField(allow_null=True)
    last_score = serializers.FloatField(allow_null=True)
    passed = serializers.BooleanField(allow_null=True)
    rule = serializers.CharField(help_text="f1 or accuracy")
    pass_mark = serializers.FloatField()


class AnnotatorRoundsSerializer(serializers.Serializer):
    state = serializers.CharField(
        help_text="invited, started, failed, qualified, eliminated, paused or blocked"
    )
    state_label = serializers.CharField(help_text="The state in words, for display.")
    current = serializers.IntegerField(allow_null=True)
    show_review = serializers.BooleanField()
    retry_delay_minutes = serializers.IntegerField()
    rounds = RoundStatusSerializer(many=True)


class ResultMarkSerializer(serializers.Serializer):
    key = serializers.CharField()
    kind = serializers.CharField(
        help_text="both, missed (expected only), extra (yours only), or yours (review hidden)"
    )


class ResultSentenceSerializer(serializers.Serializer):
    text = serializers.CharField()
    differs = serializers.BooleanField()
    marks = ResultMarkSerializer(many=True)


class ResultItemSerializer(serializers.Serializer):
    index = serializers.IntegerField()
    image = serializers.CharField()
    explanation = serializers.CharField()
    sentences = ResultSentenceSerializer(many=True)


class RoundResultSerializer(serializers.Serializer):
    round = serializers.IntegerField()
    attempt = serializers.IntegerField()
    score = serializers.FloatField()
    rule = serializers.CharField()
    pass_mark = serializers.FloatField()
    passed = serializers.BooleanField()
    attempts_left = serializers.IntegerField()
    retry_at = serializers.DateTimeField(allow_null=True)
    review_open = serializers.BooleanField(
        help_text="Whether the expected labels are included (the review rule allows it)."
    )
    review_note = serializers.CharField()
    items = ResultItemSerializer(many=True)


class GrantSerializer(InputSerializer):
    round = serializers.IntegerField(min_value=1, help_text="The round's position.")
    reason = serializers.CharField(max_length=500)


class AttemptSerializer(serializers.Serializer):
    round = serializers.IntegerField(source="round.position")
    number = serializers.IntegerField()
    started_at = serializers.DateTimeField()
    finished = serializers.SerializerMethodField()
    answered = serializers.SerializerMethodField()
    passed = serializers.BooleanField(allow_null=True)

    def get_finished(self, attempt) -> bool:
        return attempt.finished_at is not None

    def get_answered(self, attempt) -> int:
        return len(attempt.answers)


class RoundItemSerializer(serializers.Serializer):
    index = serializers.IntegerField()
    count = serializers.IntegerField()
    sentences = serializers.ListField(child=serializers.CharField())
    image = serializers.CharField()
    draft = serializers.JSONField()
    categories = WorkCategorySerializer(many=True)


class RoundAnswerSerializer(LabelsInputSerializer):
    pass


class ReviewSentenceSerializer(serializers.Serializer):
    text = serializers.CharField()
    expected = serializers.ListField(child=serializers.CharField())
    yours = serializers.ListField(child=serializers.CharField())


class ReviewItemSerializer(serializers.Serializer):
    explanation = serializers.CharField()
    sentences = ReviewSentenceSerializer(many=True)


class ReviewSerializer(serializers.Serializer):
    round = serializers.IntegerField()
    passed = serializers.BooleanField(allow_null=True)
    items = ReviewItemSerializer(many=True)


# --- researchers ---------------------------------------------------------------------------------


class PolicySerializer(InputModelSerializer):
    # A plain string in the schema: the same choices as a round's ``rule`` under a
    # second name would make a duplicate enum.
    control_rule = serializers.CharField(
        required=False, help_text="How one control item is scored: f1 or accuracy."
    )

    class Meta:
        model = QualityPolicy
        fields = [
            "max_attempts", "retry_delay_minutes", "show_gold_after_round", "control_rate",
            "control_rule", "pause_threshold", "min_controls",
        ]  # fmt: skip

    def validate_control_rule(self, value):
        if value not in QualificationRound.Rule.values:
            raise serializers.ValidationError("Use f1 or accuracy.")
        return value


class GoldSerializer(serializers.ModelSerializer):
    item = serializers.IntegerField(source="item_id", read_only=True)
    external_id = serializers.CharField(source="item.external_id", read_only=True)

    class Meta:
        model = GoldItem
        fields = ["item", "external_id", "labels", "explanation", "source", "updated_at"]
        read_only_fields = fields


class GoldInputSerializer(InputSerializer):
    labels = serializers.JSONField()
    explanation = serializers.CharField(required=False, allow_blank=True, max_length=2000)
    active_seconds = serializers.FloatField(required=False)


class GoldFromReferenceSerializer(InputSerializer):
    items = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=MAX_ID), required=False
    )


class GoldFromReferenceResultSerializer(serializers.Serializer):
    marked = serializers.IntegerField()


class RoundSerializer(serializers.ModelSerializer):
    gold_items = serializers.SerializerMethodField()

    class Meta:
        model = QualificationRound
        fields = [
            "position", "title", "rule", "pass_mark", "items_per_attempt", "max_attempts",
            "gold_items", "translations",
        ]  # fmt: skip
        read_only_fields = fields

    def get_gold_items(self, round_) -> list[int]:
        return [g.item_id for g in round_.gold_items.all()]


class RoundInputSerializer(InputSerializer):
    title = serializers.CharField(max_length=120)
    items = serializers.ListField(
        child=serializers.IntegerField(), min_length=1, help_text="Item ids with gold."
    )
    rule = serializers.ChoiceField(choices=QualificationRound.Rule.choices, default="f1")
    pass_mark = serializers.FloatField(min_value=0, max_value=1, default=0.6)
    items_per_attempt = serializers.IntegerField(
        min_value=1,
        required=False,
        allow_null=True,
        help_text="Captions one attempt asks, drawn from the items (unseen ones first); "
        "empty asks them all.",
    )
    max_attempts = serializers.IntegerField(
        min_value=1,
        max_value=10,
        required=False,
        allow_null=True,
        help_text="Attempts at this round; empty uses the project's attempts per round.",
    )


class LabelsExcludedSerializer(serializers.Serializer):
    code = serializers.CharField(
        help_text="blocked: a researcher blocked the annotator and has not included their "
        "labels again (labels_included false); eliminated: the annotator did not qualify "
        "(false); not_qualified_yet: still taking the qualification rounds (null).",
    )
    text = serializers.CharField(help_text="The reason in words, for display.")


class QualificationRowSerializer(serializers.Serializer):
    annotator = serializers.CharField(source="annotator.username")
    state = serializers.CharField(
        help_text="invited, started, failed, qualified, eliminated, paused or blocked"
    )
    state_label = serializers.CharField(help_text="The state in words, for display.")
    work_state = serializers.CharField()
    rounds_passed = serializers.IntegerField(source="qualification.rounds_passed", default=0)
    controls_done = serializers.IntegerField(source="qualification.controls_done", default=0)
    control_score = serializers.FloatField(
        source="qualification.control_accuracy", default=None, allow_null=True
    )
    labels_included = serializers.BooleanField(
        allow_null=True,
        help_text="Whether this annotator's labels (outside control items) count in agreement, "
        "aggregation and exports: true, false, or null while not decided yet (the project has "
        "qualification rounds the annotator has not passed or failed). "
        "labels_excluded_because says why not.",
    )
    labels_excluded_because = LabelsExcludedSerializer(
        allow_null=True,
        help_text="Why the labels do not count (false) or do not count yet (null); null when "
        "they count.",
    )
    labels_reincluded = serializers.BooleanField(
        source="qualification.labels_included",
        default=False,
        help_text="Whether a researcher included this annotator's labels again by hand (the "
        "include-labels action), whatever the annotator's state: the setting itself, where "
        "labels_included is its effect.",
    )


class FunnelStepSerializer(serializers.Serializer):
    label = serializers.CharField()
    count = serializers.IntegerField()


class QualityOverviewSerializer(serializers.Serializer):
    funnel = FunnelStepSerializer(many=True)
    annotators = QualificationRowSerializer(many=True)


class DecisionSerializer(InputSerializer):
    reason = serializers.CharField(max_length=500)


class RoundPatchSerializer(InputSerializer):
    """A partial change to a round; once annotators attempted it, only the title may differ."""

    refused_keys = {"position": "A round's place changes with POST .../move/ (up or down)."}

    title = serializers.CharField(max_length=120, required=False)
    items = serializers.ListField(
        child=serializers.IntegerField(),
        min_length=1,
        required=False,
        help_text="Item ids with gold.",
    )
    rule = serializers.ChoiceField(choices=QualificationRound.Rule.choices, required=False)
    pass_mark = serializers.FloatField(min_value=0, max_value=1, required=False)
    items_per_attempt = serializers.IntegerField(
        min_value=1,
        required=False,
        allow_null=True,
        help_text="Captions one attempt asks; null asks every gold item of the round.",
    )
    max_attempts = serializers.IntegerField(
        min_value=1,
        max_value=10,
        required=False,
        allow_null=True,
        help_text="Attempts at this round (may change at any time; raising it re-opens the round "
        "for annotators who used every attempt); null uses the project's attempts per round.",
    )
    translations = serializers.JSONField(
        required=False,
        help_text="The title per language, shown to annotators in the project's language: "
        '{"de": {"title": "Runde eins"}}; {} removes them. May change at any time.',
    )


class RoundMoveSerializer(InputSerializer):
    direction = serializers.ChoiceField(choices=[("up", "up"), ("down", "down")])


class RoundDeletedSerializer(serializers.Serializer):
    position = serializers.IntegerField(help_text="Where the deleted round was.")
    title = serializers.CharField()
    qualified = serializers.ListField(
        child=serializers.CharField(),
        help_text="Annotators qualified because the deleted round was the last one they lacked.",
    )
    rounds = RoundSerializer(many=True, help_text="The rounds left, renumbered 1..n.")
