"""Shapes of the study set-up and monitoring endpoints. Rules live in the services."""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from core.api.input import InputModelSerializer, InputSerializer
from studies.models import AnswerType, AttentionCheck, ParticipantSession, Question, Study
from studies.services.sessions.platform import LINK_SUFFIX
from studies.services.study import SETTINGS_FIELDS, allowed_transitions


class StudySerializer(InputModelSerializer):
    owner = serializers.CharField(source="owner.username", read_only=True)
    chart_set = serializers.SlugRelatedField(
        slug_field="slug", read_only=True, allow_null=True, help_text="Null until pairs are chosen."
    )
    pair_count = serializers.SerializerMethodField()
    attention_check_count = serializers.SerializerMethodField()
    instructions_video_url = serializers.SerializerMethodField()
    participant_link = serializers.SerializerMethodField()
    allowed_status_changes = serializers.SerializerMethodField()

    class Meta:
        model = Study
        fields = [
            "id", "title", "slug", "description", "status", "owner", "created_at", "updated_at",
            "chart_set", "pair_count", "attention_check_count", "language", "other_languages",
            "translations", "consent_text",
            "keep_answers_on_withdrawal", "instructions_text", "instructions_video_url",
            "debrief_text", "target_participants", "time_limit_minutes", "expected_minutes",
            "allowed_devices", "platform",
            "completion_code", "completion_url", "max_attention_failures",
            "min_seconds_per_trial", "min_trial_ms", "exclude_incomplete", "fast_answer_commit", "seed", "min_gap", "participant_link",
            "allowed_status_changes", "license", "citation", "stopping_rule", "stopping_half_width", "stopping_min_included",
            "stopping_max_included", "stopped_at", "stopped_reason", "stopped_detail",
        ]  # fmt: skip
        read_only_fields = [
            "id", "slug", "status", "owner", "created_at", "updated_at", "stopped_at",
            "stopped_reason", "stopped_detail",
        ]  # fmt: skip
        extra_kwargs = {"seed": {"required": False}, "title": {"allow_blank": False}}

    # Both have their own endpoint, which checks what a PATCH could not.
    refused_keys = {
        "status": "The status changes with POST /api/v1/studies/{slug}/status/ "
        '({"status": "pilot"}), which first checks that the study is ready.',
        "chart_set": "The chart set is chosen together with its pairs: PUT "
        '/api/v1/studies/{slug}/pairs/ ({"chart_set": "<slug>", "questions": [...]}).',
    }

    def get_pair_count(self, study) -> int:
        n = getattr(study, "n_pairs", None)
        return study.study_pairs.count() if n is None else n

    def get_attention_check_count(self, study) -> int:
        n = getattr(study, "n_checks", None)
        return study.attention_checks.count() if n is None else n

    def get_instructions_video_url(self, study) -> str | None:
        if not study.instructions_video:
            return None
        request = self.context.get("request")
        url = study.instructions_video.url
        return request.build_absolute_uri(url) if request else url

    def get_participant_link(self, study) -> str:
        """The link to give the recruitment platform, with its id placeholders."""
        request = self.context.get("request")
        url = reverse("participate:welcome", args=[study.slug])
        url = request.build_absolute_uri(url) if request else url
        return url + LINK_SUFFIX.get(study.platform, "")

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_allowed_status_changes(self, study):
        return list(allowed_transitions(study))

    def settings_data(self) -> dict:
        return {k: v for k, v in self.validated_data.items() if k in SETTINGS_FIELDS}


class StudyStatusSerializer(InputSerializer):
    status = serializers.ChoiceField(choices=Study.Status.choices)
    confirm_warnings = serializers.BooleanField(
        default=False,
        help_text="Go ahead despite the study's warnings (see the readiness endpoint). Without "
        "it, starting a pilot or going live with warnings answers 409 listing them.",
    )


class PairsReplacedErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()
    errors = serializers.DictField(child=serializers.ListField(child=serializers.CharField()))
    code = serializers.CharField(help_text="pairs_replaced")
    replaced = serializers.IntegerField(help_text="How many of the study's pairs would go.")


class ReadinessItemSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="Stable machine-readable name of the problem.")
    message = serializers.CharField()
    field = serializers.CharField(
        help_text="What fixes it: a study setting's name, `pairs`, `checks` or `pair` (a pair "
        "of the chart library)."
    )


class ReadinessSerializer(serializers.Serializer):
    ready = serializers.BooleanField(help_text="No blockers: the study can go to pilot or live.")
    blockers = ReadinessItemSerializer(many=True)
    warnings = ReadinessItemSerializer(
        many=True, help_text="To confirm with confirm_warnings=true when changing the status."
    )


class WarningsErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()
    errors = serializers.DictField(child=serializers.ListField(child=serializers.CharField()))
    warnings = ReadinessItemSerializer(many=True)


class StudyPairSerializer(serializers.ModelSerializer):
    group = serializers.CharField(source="group.code")
    chart_type = serializers.CharField(source="group.chart_type")
    manipulation = serializers.CharField(source="group.manipulation.slug")

    class Meta:
        model = Question
        fields = ["id", "code", "group", "chart_type", "manipulation", "answer_type", "text"]
        read_only_fields = fields


class PairsSetSerializer(InputSerializer):
    chart_set = serializers.SlugField(help_text="The chart set's slug.")
    questions = serializers.ListField(
        child=serializers.IntegerField(min_value=1),
        required=False,
        max_length=5000,
        help_text="Pair ids of that set (the `id` fields of GET "
        "/api/v1/library/chart-sets/{slug}/pairs/). Leave out with all=true.",
    )
    all = serializers.BooleanField(default=False, help_text="Use every complete pair of the set.")
    replace = serializers.BooleanField(
        default=False,
        help_text="Go ahead although the choice drops pairs the study uses now. Without it, "
        "such a request answers 409 with `replaced` (how many would go) and changes nothing.",
    )

    def validate(self, attrs):
        if not attrs.get("all") and not attrs.get("questions"):
            raise serializers.ValidationError({"questions": ["Choose pairs, or send all=true."]})
        if attrs.get("all") and attrs.get("questions"):
            # Which one was meant cannot be told; all=true used to drop the list unread.
            raise serializers.ValidationError(
                {"questions": ["Send either questions or all=true, not both."]}
            )
        return attrs


class AttentionCheckSerializer(InputModelSerializer):
    image_url = serializers.SerializerMethodField()
    # A file, not DRF's ImageField: the service checks it and says what is wrong with it
    # ("This is a PDF file; please save the chart as ..."), where ImageField only said that
    # it was no valid image.
    image = serializers.FileField(write_only=True, required=False)
    options = serializers.ListField(
        child=serializers.CharField(max_length=300), required=False, max_length=20
    )
    answer_type = serializers.ChoiceField(
        choices=AnswerType.choices, default=AnswerType.MULTIPLE_CHOICE
    )

    class Meta:
        model = AttentionCheck
        fields = [
            "id", "kind", "prompt", "answer_type", "options", "answer_key", "tolerance",
            "position", "image", "image_url", "alt_text", "created_at",
        ]  # fmt: skip
        read_only_fields = ["id", "created_at"]
        # The model's default would let a POST without `kind` reach the service without
        # one; an attention check's kind is a choice the researcher makes.
        extra_kwargs = {"kind": {"required": True}}

    def get_image_url(self, check) -> str | None:
        if not check.image:
            return None
        request = self.context.get("request")
        return request.build_absolute_uri(check.image.url) if request else check.image.url


class CountsSerializer(serializers.Serializer):
    started = serializers.IntegerField()
    in_progress = serializers.IntegerField()
    completed = serializers.IntegerField()
    timed_out = serializers.IntegerField()
    withdrawn = serializers.IntegerField()
    declined = serializers.IntegerField()
    abandoned = serializers.IntegerField(
        help_text="Sessions whose platform id the researcher released to start again."
    )
    excluded = serializers.IntegerField(
        help_text="Finished sessions the exclusion rules would exclude."
    )
    included = serializers.IntegerField()


class BalanceSerializer(serializers.Serializer):
    code = serializers.CharField()
    manipulated_first = serializers.IntegerField()
    non_manipulated_first = serializers.IntegerField()
    difference = serializers.IntegerField()


class ChartPrecisionSerializer(serializers.Serializer):
    chart_id = serializers.CharField()
    n = serializers.IntegerField()
    hmi = serializers.FloatField(allow_null=True)
    half_width = serializers.FloatField(
        allow_null=True, help_text="Half-width of the chart's 95% Wilson interval now."
    )
    still_needed = serializers.IntegerField(
        help_text="Included participants still needed to reach the target at the HMI seen so far."
    )


class PrecisionSerializer(serializers.Serializer):
    target = serializers.FloatField(help_text="The study's target half-width.")
    included = serializers.IntegerField()
    met = serializers.BooleanField()
    largest_half_width = serializers.FloatField(allow_null=True)
    still_needed = serializers.IntegerField()
    charts = ChartPrecisionSerializer(many=True)


class MonitorSerializer(serializers.Serializer):
    counts = CountsSerializer()
    pilot_sessions = serializers.IntegerField()
    preview_sessions = serializers.IntegerField()
    balance = BalanceSerializer(many=True)
    max_imbalance = serializers.IntegerField()
    median_duration_s = serializers.FloatField(allow_null=True)
    attention_answered = serializers.IntegerField()
    attention_failed = serializers.IntegerField()
    attention_failure_rate = serializers.FloatField(allow_null=True)
    participants_failing_attention = serializers.IntegerField()
    precision = PrecisionSerializer(
        help_text="Per chart, over the included participants: the interval now and what it needs."
    )


class SessionStatusField(serializers.CharField):
    # A plain string in the schema: an enum here would collide with the study's "status" enum.
    def __init__(self, **kwargs):
        kwargs.setdefault(
            "help_text", "One of: " + ", ".join(ParticipantSession.Status.values) + "."
        )
        super().__init__(**kwargs)


class SessionSerializer(serializers.ModelSerializer):
    label = serializers.SerializerMethodField(
        help_text=(
            "The number as the study's pages show it: `7` for live participant 7, `pilot 1` or "
            "`preview 2` for a test session (test sessions are numbered apart from the live "
            "sample, so their numbers repeat live ones). Null when the session has no number "
            "(declined consent)."
        ),
    )
    answered = serializers.IntegerField(
        source="answers_on_record",
        help_text=(
            "How many answers of this session are stored: the trials answered so far, or 0 "
            "when its answers were deleted on withdrawal (`answers_deleted`). A withdrawn "
            "session whose answers were kept counts them."
        ),
    )
    withdrawn_at = serializers.DateTimeField(
        allow_null=True,
        help_text="When the participant withdrew; null unless `status` is `withdrawn`.",
    )
    status = SessionStatusField(read_only=True)

    class Meta:
        model = ParticipantSession
        fields = [
            "id", "number", "label", "status", "is_pilot", "is_preview", "language", "platform",
            "external_id", "platform_params", "order_seed", "trial_count", "answered",
            "attention_failures", "answers_deleted", "created_at", "consented_at", "deadline",
            "completed_at", "ended_at", "withdrawn_at",
        ]  # fmt: skip
        read_only_fields = fields
        extra_kwargs = {
            "number": {
                "help_text": "The session's place in its sequence: live sessions count 1, 2, 3...; "
                "pilot and preview sessions count apart, so read `label` (or `is_pilot` / "
                "`is_preview`) to tell them from live ones. With the study's seed it fixes the "
                "trial order. Null for a session that declined consent."
            },
            "is_pilot": {"help_text": "Taken while the study was in pilot; not in the results."},
            "is_preview": {
                "help_text": "A researcher's preview run; never counted, never in the results."
            },
            "trial_count": {"help_text": "Trials in the session's order (charts and checks)."},
            "attention_failures": {
                "help_text": "Attention checks failed (0 once answers were deleted on withdrawal)."
            },
            "answers_deleted": {
                "help_text": "The participant withdrew and the study's consent said their answers "
                "are deleted: they were."
            },
            "ended_at": {
                "help_text": "When the session ended without completing (timed out, withdrawn, "
                "declined or released)."
            },
        }

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_label(self, session) -> str | None:
        return session.number_label or None


class SessionReleaseSerializer(InputSerializer):
    reason = serializers.CharField(
        required=False, allow_blank=True, max_length=2000, help_text="Written to the audit log."
    )


class ResponseSerializer(serializers.Serializer):
    raw_answer = serializers.CharField()
    value = serializers.JSONField()
    correct = serializers.BooleanField(allow_null=True)
    shown_at = serializers.DateTimeField(allow_null=True)
    answered_at = serializers.DateTimeField()
    server_ms = serializers.IntegerField(allow_null=True)
    client_ms = serializers.IntegerField(allow_null=True)
    interactions = serializers.IntegerField(allow_null=True)
    first_interaction_ms = serializers.IntegerField(allow_null=True)


class TrialRowSerializer(serializers.Serializer):
    position = serializers.IntegerField()
    kind = serializers.CharField()
    chart = serializers.CharField(source="chart.chart_id", allow_null=True, default=None)
    version = serializers.IntegerField(source="chart.version", allow_null=True, default=None)
    question = serializers.CharField(source="question.code", allow_null=True, default=None)
    attention_check = serializers.IntegerField(source="attention_check_id", allow_null=True)
    shown_at = serializers.DateTimeField(allow_null=True)
    response = serializers.SerializerMethodField()

    @extend_schema_field(ResponseSerializer(allow_null=True))
    def get_response(self, trial):
        response = getattr(trial, "response", None)
        return ResponseSerializer(response).data if response is not None else None


class SessionDetailSerializer(SessionSerializer):
    order = serializers.JSONField()
    trials = serializers.SerializerMethodField()

    class Meta(SessionSerializer.Meta):
        fields = SessionSerializer.Meta.fields + ["order", "trials"]
        read_only_fields = fields

    @extend_schema_field(TrialRowSerializer(many=True))
    def get_trials(self, session):
        return TrialRowSerializer(self.context["trials"], many=True).data


class StudyPreviewSerializer(serializers.Serializer):
    token = serializers.CharField()
    url = serializers.CharField(help_text="Open this to take the study as a participant would.")


class StarterTextsSerializer(serializers.Serializer):
    consent_text = serializers.CharField()
    instructions_text = serializers.CharField()
    debrief_text = serializers.CharField()
