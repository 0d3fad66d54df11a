from rest_framework import serializers

from studies.models import Study


class StudySerializer(serializers.ModelSerializer):
    owner = serializers.CharField(source="owner.username", read_only=True)

    class Meta:
        model = Study
        fields = ["id", "title", "slug", "description", "status", "owner", "created_at"]
        read_only_fields = ["id", "slug", "status", "owner", "created_at"]
