from rest_framework import serializers

from core.api.input import InputSerializer
from core.models import ApiToken, Job, User

# The largest id a BigAutoField holds: larger numbers in input are refused as invalid
# before a database driver refuses them with an error.
MAX_ID = 2**63 - 1


class MeSerializer(serializers.ModelSerializer):
    # Not an EmailField: accounts made without an address answer "", which is no email.
    email = serializers.CharField(read_only=True, help_text="Empty when none was given.")

    class Meta:
        model = User
        fields = ["id", "username", "email", "first_name", "last_name", "role"]
        read_only_fields = fields


class ApiTokenSerializer(serializers.ModelSerializer):
    class Meta:
        model = ApiToken
        fields = ["id", "name", "prefix", "created_at", "last_used_at", "revoked_at"]
        read_only_fields = fields


class ApiTokenCreateSerializer(InputSerializer):
    name = serializers.CharField(max_length=100)


class ApiTokenCreatedSerializer(ApiTokenSerializer):
    key = serializers.CharField(read_only=True, help_text="Shown once; store it now.")

    class Meta(ApiTokenSerializer.Meta):
        fields = ApiTokenSerializer.Meta.fields + ["key"]
        read_only_fields = fields


class JobSerializer(serializers.ModelSerializer):
    download_url = serializers.SerializerMethodField()

    class Meta:
        model = Job
        fields = [
            "id", "kind", "state", "progress", "message", "error", "subject", "result",
            "created_at", "started_at", "heartbeat_at", "finished_at", "attempts", "download_url",
        ]  # fmt: skip
        read_only_fields = fields

    def to_representation(self, job):
        data = super().to_representation(job)
        if isinstance(data.get("result"), dict) and "traceback" in data["result"]:
            # Failed jobs stored their traceback (server paths) before it went to the log only.
            data["result"] = {k: v for k, v in data["result"].items() if k != "traceback"}
        return data

    def get_download_url(self, job) -> str | None:
        if not job.result_file:
            return None
        request = self.context.get("request")
        from django.urls import reverse

        url = reverse("api:job-download", args=[job.pk])
        return request.build_absolute_uri(url) if request else url


class ApiCollectionsSerializer(serializers.Serializer):
    me = serializers.URLField(help_text="The signed-in account.")
    studies = serializers.URLField(help_text="Your chart studies (researchers).")
    chart_sets = serializers.URLField(help_text="The chart library's sets (researchers).")
    projects = serializers.URLField(help_text="Your caption annotation projects (researchers).")
    annotator_projects = serializers.URLField(help_text="The projects you annotate (annotators).")
    jobs = serializers.URLField(help_text="Your background jobs and their downloads.")
    tokens = serializers.URLField(help_text="Your API tokens (researchers).")


class ApiIndexSerializer(serializers.Serializer):
    name = serializers.CharField()
    version = serializers.CharField()
    authentication = serializers.CharField(help_text="How to send an API token.")
    schema = serializers.URLField(help_text="The OpenAPI 3 schema (YAML; ?format=json for JSON).")
    docs = serializers.URLField(help_text="Interactive documentation (Swagger UI).")
    redoc = serializers.URLField(help_text="The same documentation as one page (Redoc).")
    tokens_page = serializers.URLField(help_text="Where researchers create API tokens.")
    collections = ApiCollectionsSerializer()
