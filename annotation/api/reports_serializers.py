"""Request and response shapes of the reports API (annotation.api.reports): input is checked
here, the rules stay in the services."""

from rest_framework import serializers

from analysis.aggregation import METHODS
from annotation.services.reports import LABEL_SOURCES
from annotation.services.reports.aggregate import UNKNOWN_LABEL_SOURCE
from core.api.input import InputSerializer
from core.api.serializers import JobSerializer

METHOD_CHOICES = ", ".join(METHODS)


class ReportQuerySerializer(InputSerializer):
    # The report aggregates with the project's own method; a ?method= here would be ignored.
    refused_keys = {
        "method": "The report aggregates labels with the project's aggregation_method (one of "
        f"{METHOD_CHOICES}); change it with PATCH /api/v1/projects/{{slug}}/. The exports take "
        f"?method= (one of {METHOD_CHOICES}).",
    }

    labels = serializers.ChoiceField(
        choices=LABEL_SOURCES,
        required=False,
        help_text="annotators (their majority vote) or reference (imported labels). "
        "Default: annotators' once there are any. The raw label files (labels-csv, "
        "labels-jsonl) are the annotators' unless reference is given.",
        error_messages={
            "invalid_choice": UNKNOWN_LABEL_SOURCE.replace("{value}", "{input}").replace(
                "{allowed}", ", ".join(LABEL_SOURCES)
            )
        },
    )
    include_excluded = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Count every label set, also from unqualified or blocked annotators.",
    )


class ReportSnapshotSerializer(serializers.Serializer):
    computed_at = serializers.DateTimeField()
    seconds = serializers.FloatField()
    data = serializers.JSONField(help_text="The report (see the report-json export).")


class ReportStateSerializer(serializers.Serializer):
    labels = serializers.CharField()
    include_excluded = serializers.BooleanField()
    stale = serializers.BooleanField(help_text="Labels or settings changed since it was computed.")
    report = ReportSnapshotSerializer(allow_null=True)
    job = JobSerializer(allow_null=True, help_text="The latest job computing this report.")


class ExportQuerySerializer(ReportQuerySerializer):
    refused_keys = {}
    method = serializers.ChoiceField(
        choices=list(METHODS.items()),
        required=False,
        help_text="How annotators' labels are aggregated; the export then carries the method "
        "and the posteriors. Default: the project's aggregation method (majority vote unless "
        "changed; with majority and no method the files are as before methods existed).",
    )


class TieRuleSerializer(InputSerializer):
    tie_rule = serializers.ChoiceField(
        choices=[("negative", "A tie is no error"), ("positive", "A tie is an error")],
        help_text="How a majority vote with as many raters for as against an error is decided.",
    )
