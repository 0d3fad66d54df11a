"""Request and response shapes of the participant flow as JSON (see studies.api.participant)."""

from __future__ import annotations

import copy

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from core.api.input import InputSerializer
from studies import answer_types
from studies.models import AnswerType, Devices, ParticipantSession, Platform
from studies.selectors.languages import session_language
from studies.selectors.timing import session_seconds_left
from studies.services import sessions as svc

Status = ParticipantSession.Status


class ParticipantErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()
    code = serializers.CharField(required=False, help_text="Stable machine-readable reason.")
    errors = serializers.DictField(child=serializers.ListField(child=serializers.CharField()))


class SessionStatusField(serializers.CharField):
    # A plain string in the schema: an enum here would collide with the study's "status" enum.
    def __init__(self, **kwargs):
        kwargs.setdefault("help_text", "One of: " + ", ".join(Status.values) + ".")
        super().__init__(**kwargs)


class PublicStudySerializer(serializers.Serializer):
    slug = serializers.CharField()
    language = serializers.CharField(
        help_text="The language of the texts below: `?lang=` when the study offers it, else "
        "the browser's Accept-Language among the study's languages, else its primary one."
    )
    languages = serializers.ListField(
        child=serializers.CharField(), help_text="The study's languages, the primary first."
    )
    title = serializers.CharField()
    description = serializers.CharField()
    consent_text = serializers.CharField()
    keep_answers_on_withdrawal = serializers.BooleanField()
    instructions_text = serializers.CharField()
    instructions_video_url = serializers.CharField(allow_null=True)
    time_limit_minutes = serializers.IntegerField(help_text="The hard limit, from consent.")
    expected_minutes = serializers.IntegerField(
        allow_null=True,
        help_text="What the study usually takes: the researcher's figure, else estimated from "
        "completed pilot sessions; null when neither is known.",
    )
    time_statement = serializers.CharField(
        help_text="Both in the words every participant page uses, e.g. "
        '"It usually takes about 15 minutes; you have up to 60."'
    )
    platform = serializers.ChoiceField(choices=Platform.choices)
    id_param = serializers.CharField(
        allow_null=True, help_text="The link parameter carrying the participant's platform id."
    )
    allowed_devices = serializers.ChoiceField(
        choices=Devices.choices,
        help_text="`desktop_tablet`: starting from a phone answers 409 `device_not_allowed`.",
    )
    accepting = serializers.BooleanField()
    unavailable_reason = serializers.CharField(allow_null=True)


class StartSerializer(InputSerializer):
    consent = serializers.BooleanField(
        help_text="Must be true: the participant read the consent text and agreed. "
        "To record a decline, use the decline endpoint."
    )
    params = serializers.DictField(
        child=serializers.CharField(max_length=200, allow_blank=True),
        required=False,
        default=dict,
        help_text='The link\'s platform parameters, e.g. {"PROLIFIC_PID": "...", "STUDY_ID": "..."}; '
        "`lang` chooses one of the study's languages for the session.",
    )
    token = serializers.CharField(
        max_length=64,
        required=False,
        allow_blank=True,
        default="",
        help_text="To resume: the token this client was given when it started the session. "
        "Without it, a platform id that already has a session is refused (409).",
    )


class CompletionSerializer(serializers.Serializer):
    code = serializers.CharField(allow_blank=True)
    redirect_url = serializers.CharField(allow_blank=True)


def _stage(session) -> str:
    if session.status == Status.COMPLETED:
        return "completed"
    if session.status != Status.IN_PROGRESS:
        return "ended"
    if session.current_position == 0 and session.instructions_done_at is None:
        return "instructions"
    return "trial"


def _seconds_left(session) -> int | None:
    if session.status != Status.IN_PROGRESS:
        return None
    return session_seconds_left(session)


def _completion(session) -> dict | None:
    if session.status != Status.COMPLETED:
        return None
    completion = svc.completion_for(session)
    return {"code": completion.code, "redirect_url": completion.redirect_url}


def session_state(session) -> dict:
    """A session as the JSON flow shows it (the shape :class:`SessionStateSerializer` documents).

    Built as a plain dict: it goes out with every answer, and a DRF serializer costs a
    deep copy of its declared fields per instance.
    """
    return {
        "token": session.token,
        "study": session.study.slug,
        "status": session.status,
        "stage": _stage(session),
        "is_pilot": session.is_pilot,
        "is_preview": session.is_preview,
        "language": session_language(session),
        "position": session.current_position,
        "trial_count": session.trial_count,
        "deadline": session.deadline,
        "seconds_left": _seconds_left(session),
        "completion": _completion(session),
    }


class SessionStateSerializer(serializers.Serializer):
    """Where the participant is in the session: its stage (instructions, trial, completed or
    ended), the position among its trials, the time left and, once it is finished, the
    completion code or redirect."""

    token = serializers.CharField()
    study = serializers.CharField(source="study.slug")
    status = SessionStatusField()
    stage = serializers.SerializerMethodField()
    is_pilot = serializers.BooleanField()
    is_preview = serializers.BooleanField()
    language = serializers.SerializerMethodField()
    position = serializers.IntegerField(source="current_position")
    trial_count = serializers.IntegerField()
    deadline = serializers.DateTimeField()
    seconds_left = serializers.SerializerMethodField()
    completion = serializers.SerializerMethodField()

    def to_representation(self, instance):
        return session_state(instance)

    @extend_schema_field(
        serializers.ChoiceField(choices=["instructions", "trial", "completed", "ended"])
    )
    def get_stage(self, session) -> str:
        return _stage(session)

    def get_language(self, session) -> str:
        return session_language(session)

    def get_seconds_left(self, session) -> int | None:
        return _seconds_left(session)

    @extend_schema_field(CompletionSerializer(allow_null=True))
    def get_completion(self, session):
        return _completion(session)


class RankItemSerializer(serializers.Serializer):
    index = serializers.IntegerField(help_text="0-based index of the item in `options`.")
    text = serializers.CharField()


class TrialSerializer(serializers.Serializer):
    position = serializers.IntegerField(help_text="0-based; send it back with the answer.")
    number = serializers.IntegerField(help_text="1-based, for showing 'chart 3 of 114'.")
    trial_count = serializers.IntegerField()
    # No "kind": whether a trial is an attention check is kept from the participant's
    # client, so a script answering the study cannot tell the checks apart.
    answer_type = serializers.ChoiceField(choices=AnswerType.choices)
    prompt = serializers.CharField()
    options = serializers.ListField(
        child=serializers.CharField(),
        help_text="Multiple choice: the options (answer with the 0-based index). Ranking: the items.",
    )
    items = RankItemSerializer(
        many=True,
        help_text="Ranking: the items, unranked, in the order to list them for placing. Show "
        "them as not yet placed; never submit this order without the participant's actions.",
    )
    image_url = serializers.CharField(allow_null=True)
    width = serializers.IntegerField()
    height = serializers.IntegerField()
    alt = serializers.CharField()
    shown_at = serializers.DateTimeField()
    time_left = serializers.CharField(
        allow_blank=True,
        help_text="The time left as the trial page says it "
        '("About 52 of your 60 minutes left"; empty without a time limit).',
    )
    seconds_left = serializers.IntegerField(
        allow_null=True,
        help_text="The seconds left before the time limit, for a clock that counts down "
        "between answers (null without a time limit).",
    )
    preload_image_url = serializers.CharField(
        allow_null=True,
        help_text="The chart of the trial after this one (when known), to fetch ahead while "
        "the participant answers this one.",
    )


class AnswerField(serializers.Field):
    """A number as text, an option index, or a list of ranking items."""

    def to_internal_value(self, data):
        if isinstance(data, bool) or data is None:
            raise serializers.ValidationError("Give an answer.")
        if isinstance(data, int | float | str):
            return data
        if isinstance(data, list) and all(isinstance(i, str) for i in data) and len(data) <= 50:
            return data
        raise serializers.ValidationError(
            "Send text, a number, an option index, or a list of item texts."
        )

    def to_representation(self, value):
        return value


@extend_schema_field(
    {
        "oneOf": [
            {"type": "string"},
            {"type": "number"},
            {"type": "integer"},
            {"type": "array", "items": {"type": "string"}},
        ]
    }
)
class DocumentedAnswerField(AnswerField):
    pass


class FieldsBuiltOnce:
    # Notes in comments, not a docstring: the API docs would show a docstring as the
    # description of every serializer built on this one.
    #
    # A serializer whose declared fields are built once per class, not per instance.
    # DRF rebuilds every declared field for each serializer (a deep copy runs each field's
    # __init__ again); for the answer, sent many times a second, that was most of its
    # validation's cost. Each instance binds shallow copies instead: the fields keep no
    # state of their own between validations (simple fields only, no nested serializers).

    def get_fields(self):
        cls = type(self)
        built = cls.__dict__.get("_fields_built")
        if built is None:
            built = super().get_fields()
            cls._fields_built = built
        return {name: copy.copy(field) for name, field in built.items()}


class SubmitSerializer(FieldsBuiltOnce, InputSerializer):
    """The participant's answer to the current trial, with how long it took."""

    position = serializers.IntegerField(min_value=0, help_text="The current trial's position.")
    answer = DocumentedAnswerField(
        # Each answer type says what its answer is (studies.answer_types).
        help_text=" ".join(t.api_answer for t in answer_types.all_types())
    )
    client_ms = serializers.IntegerField(
        min_value=0,
        max_value=24 * 3600 * 1000,
        required=False,
        allow_null=True,
        help_text="Time on the trial: milliseconds from showing the chart to the answer, by the "
        "client's clock.",
    )
    interactions = serializers.IntegerField(
        min_value=0,
        max_value=100_000,
        required=False,
        allow_null=True,
        help_text="How many answer-changing actions the participant made (a choice, an edit of "
        "the typed number, a ranking item placed or moved). Required for rankings, and at "
        "least 1: a ranking reported as given without any interaction is refused.",
    )
    first_interaction_ms = serializers.IntegerField(
        min_value=0,
        max_value=24 * 3600 * 1000,
        required=False,
        allow_null=True,
        help_text="Milliseconds from showing the chart to the first of those actions.",
    )
    idempotency_key = serializers.RegexField(
        r"^[A-Za-z0-9_.:-]{1,64}$",
        required=False,
        allow_blank=True,
        help_text="Any unique string per trial; a retry with the same key returns the stored answer.",
    )

    @classmethod
    def validated_plain(cls, data) -> dict | None:
        """The validated data of a body with only this serializer's keys, each valid, without
        building a serializer; None otherwise, and a serializer then decides and words the
        errors.

        The answer is sent many times a second; building and running the serializer was 0.11
        ms of CPU per answer. Each value goes through its own declared field, which converts
        and checks it (bounds, pattern and every other validator) as the serializer would:
        for a flat serializer without ``validate`` methods, which this is, that is all the
        serializer does besides refusing unknown and missing keys.
        """
        if type(data) is not dict or "position" not in data or "answer" not in data:
            return None
        fields = cls._declared_fields
        validated = {}
        for name, value in data.items():
            field = fields.get(name)
            if field is None:
                return None
            try:
                validated[name] = field.run_validation(value)
            except serializers.ValidationError:
                return None
        return validated


class SubmitResultSerializer(serializers.Serializer):
    stored = serializers.BooleanField()
    duplicate = serializers.BooleanField(
        help_text="True when this repeated an answer already stored."
    )
    position = serializers.IntegerField()
    session = SessionStateSerializer()


class DeclinedSerializer(serializers.Serializer):
    status = SessionStatusField()
    detail = serializers.CharField()
