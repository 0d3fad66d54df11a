from rest_framework import serializers

from annotation.models import Project


class ProjectSerializer(serializers.ModelSerializer):
    owner = serializers.CharField(source="owner.username", read_only=True)

    class Meta:
        model = Project
        fields = ["id", "title", "slug", "description", "owner", "invite_code", "created_at"]
        read_only_fields = ["id", "slug", "owner", "invite_code", "created_at"]


class JoinedProjectSerializer(serializers.ModelSerializer):
    """What an annotator may know about a project: no invite code, no owner details."""

    class Meta:
        model = Project
        fields = ["id", "title", "slug", "description"]
        read_only_fields = fields
