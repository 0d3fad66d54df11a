"""Request and response shapes of the model evaluation API (studies.api.model_eval)."""

from rest_framework import serializers

from core.api.input import InputSerializer
from studies.model_answers_format import DEFAULT_MAX_BYTES


class ModelAnswersUploadSerializer(InputSerializer):
    file = serializers.FileField(
        help_text="CSV or JSON Lines: model, chart_id, fact_answer, mind_prediction, "
        "mind_justification."
    )

    def validate_file(self, upload):
        if upload.size > DEFAULT_MAX_BYTES:
            raise serializers.ValidationError("The file is larger than 50 MB.")
        return upload


class ProblemSerializer(serializers.Serializer):
    row = serializers.IntegerField(allow_null=True)
    kind = serializers.CharField()
    message = serializers.CharField()
    text = serializers.CharField()


class CoverageSerializer(serializers.Serializer):
    model = serializers.CharField()
    total = serializers.IntegerField()
    answered = serializers.IntegerField()
    fact_answered = serializers.IntegerField()
    mind_answered = serializers.IntegerField()
    coverage = serializers.FloatField()
    missing = serializers.ListField(child=serializers.CharField())


class ImportReportSerializer(serializers.Serializer):
    imported = serializers.DictField(child=serializers.IntegerField())
    problems = ProblemSerializer(many=True)
    coverage = CoverageSerializer(many=True)


class ImportErrorSerializer(serializers.Serializer):
    """The import's 400: the error format, plus the file's problems and coverage when the
    file was read (a request without a readable file gets the plain error format)."""

    detail = serializers.CharField()
    errors = serializers.DictField(child=serializers.ListField(child=serializers.CharField()))
    problems = ProblemSerializer(many=True, required=False)
    coverage = CoverageSerializer(many=True, required=False)


class ModelEvalSerializer(serializers.Serializer):
    models = serializers.ListField(child=serializers.CharField())
    coverage = CoverageSerializer(many=True)
    has_hmi = serializers.BooleanField()
    messages = serializers.ListField(child=serializers.CharField())
    fact = serializers.JSONField(required=False, help_text="overall, by_group, chi_square tables")
    mind = serializers.JSONField(
        required=False, help_text="metrics, arrows and per-chart predictions tables"
    )
    log_odds = serializers.JSONField(required=False, help_text="models and humans tables")
    humans = serializers.JSONField(
        allow_null=True,
        help_text="label, participants, trials, results_computed_at of the humans' rows "
        "(first in the fact tables); null before the study's results are computed",
    )
    seed = serializers.IntegerField()
    estimators = serializers.DictField(child=serializers.CharField())
    kendall = serializers.JSONField(required=False, allow_null=True)
    justifications = serializers.JSONField(
        required=False, help_text="per_model, by_group and per-chart tables"
    )
    svg = serializers.JSONField(required=False, help_text="With ?svg=1.")


class ModelEvalExportErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()
    errors = serializers.DictField()
