from rest_framework import generics

from core.permissions import IsResearcher
from studies.api.serializers import StudySerializer
from studies.models import Study
from studies.services import study_create


class StudyListCreateView(generics.ListCreateAPIView):
    """Studies you own or that were shared with you; POST creates one."""

    permission_classes = [IsResearcher]
    serializer_class = StudySerializer

    def get_queryset(self):
        return Study.objects.visible_to(self.request.user).select_related("owner")

    def perform_create(self, serializer):
        serializer.instance = study_create(owner=self.request.user, **serializer.validated_data)


class StudyDetailView(generics.RetrieveAPIView):
    permission_classes = [IsResearcher]
    serializer_class = StudySerializer
    lookup_field = "slug"

    def get_queryset(self):
        return Study.objects.visible_to(self.request.user).select_related("owner")
