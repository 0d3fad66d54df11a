"""Request and response shapes of the results API (studies.api.results)."""

from rest_framework import serializers

from core.api.input import InputSerializer
from core.api.serializers import JobSerializer
from studies.models import StaleReason
from studies.services import exports


class StaleReasonSerializer(serializers.Serializer):
    code = serializers.ChoiceField(
        choices=StaleReason.CODES,
        help_text="responses_changed: responses came in or left since the results were "
        "computed; inputs_changed: an inclusion decision or an exclusion rule changed since.",
    )
    text = serializers.CharField(
        help_text="The same reason in a sentence, as the results page says it."
    )


class ResultsSerializer(serializers.Serializer):
    computed_at = serializers.DateTimeField(allow_null=True)
    computed_from_responses = serializers.IntegerField()
    responses_now = serializers.IntegerField()
    stale = serializers.BooleanField(help_text="The results are out of date: see stale_reason.")
    stale_reason = StaleReasonSerializer(
        allow_null=True, help_text="Why the results are out of date; null while they are not."
    )
    job = JobSerializer(allow_null=True)
    results = serializers.JSONField(
        allow_null=True,
        help_text="funnel, decisions, charts (HMI, n, Wilson CI, answers), groups (Table 1), "
        "chi_square, log_odds (each row names its estimator), kendall, messages; svg with ?svg=1.",
    )


class DecisionSerializer(serializers.Serializer):
    session = serializers.IntegerField()
    number = serializers.IntegerField(allow_null=True)
    status = serializers.CharField()
    included = serializers.BooleanField()
    overridden = serializers.BooleanField()
    override = serializers.CharField(allow_null=True)
    reasons = serializers.CharField()


class DecisionInputSerializer(InputSerializer):
    decision = serializers.ChoiceField(choices=["include", "exclude", "auto"])
    reason = serializers.CharField(max_length=2000)


class SvgQuerySerializer(InputSerializer):
    svg = serializers.BooleanField(
        default=False,
        help_text="Include the SVG plots.",
        error_messages={"invalid": "Give true or false (or 1 or 0)."},
    )


def wants_svg(request) -> bool:
    """The ?svg= of a results request; anything but a yes or no is a 400."""
    query = SvgQuerySerializer(data=request.query_params)
    query.is_valid(raise_exception=True)
    return query.validated_data["svg"]


class ExportInputSerializer(InputSerializer):
    format = serializers.ChoiceField(choices=sorted(exports.FORMATS))
    include_platform_ids = serializers.BooleanField(default=False)


class ExportErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()


class StudyComparisonSerializer(serializers.Serializer):
    study = serializers.CharField()
    other = serializers.CharField()
    other_title = serializers.CharField()
    estimator = serializers.CharField()
    tau = serializers.FloatField(allow_null=True)
    p_value = serializers.FloatField(allow_null=True)
    message = serializers.CharField(allow_null=True)
    groups = serializers.ListField(
        child=serializers.DictField(),
        help_text="Shared manipulation groups, this study's highest log OR first: manipulation, "
        "group, other_group, log_odds_ratio, other_log_odds_ratio.",
    )
    only_here = serializers.ListField(
        child=serializers.CharField(),
        help_text="Groups with a fitted log OR in this study that the other study does not have.",
    )
    only_there = serializers.ListField(
        child=serializers.CharField(),
        help_text="Groups with a fitted log OR in the other study that this study does not have.",
    )
    not_estimated_there = serializers.ListField(
        child=serializers.CharField(),
        help_text="Groups with a fitted log OR in this study that the other study has but could "
        "not fit (e.g. every answer in one version right or wrong).",
    )
    not_estimated_here = serializers.ListField(
        child=serializers.CharField(),
        help_text="Groups with a fitted log OR in the other study that this study has but could "
        "not fit.",
    )
