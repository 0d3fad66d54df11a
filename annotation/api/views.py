from rest_framework import generics

from annotation.api.serializers import JoinedProjectSerializer, ProjectSerializer
from annotation.models import Project
from annotation.services import project_create
from core.permissions import IsAnnotator, IsResearcher


class ProjectListCreateView(generics.ListCreateAPIView):
    """Annotation projects you own or that were shared with you; POST creates one."""

    permission_classes = [IsResearcher]
    serializer_class = ProjectSerializer

    def get_queryset(self):
        return Project.objects.visible_to(self.request.user).select_related("owner")

    def perform_create(self, serializer):
        serializer.instance = project_create(owner=self.request.user, **serializer.validated_data)


class ProjectDetailView(generics.RetrieveAPIView):
    permission_classes = [IsResearcher]
    serializer_class = ProjectSerializer
    lookup_field = "slug"

    def get_queryset(self):
        return Project.objects.visible_to(self.request.user).select_related("owner")


class JoinedProjectListView(generics.ListAPIView):
    """The projects you joined as an annotator."""

    permission_classes = [IsAnnotator]
    serializer_class = JoinedProjectSerializer

    def get_queryset(self):
        return Project.objects.joined_by(self.request.user)
