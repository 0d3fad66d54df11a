"""The study planner over the API: POST the inputs, get the participants needed and the cost."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from studies.api.planner_serializers import PlanInputSerializer, PlanSerializer
from studies.api.study import StudyScoped
from studies.selectors.planner import PlanInput, study_plan


class StudyPlanView(StudyScoped, APIView):
    @extend_schema(
        summary="Plan the number of participants (precision of HMIs or power of pairs) and cost",
        request=PlanInputSerializer,
        responses={200: PlanSerializer},
    )
    def post(self, request, slug):
        study = self.get_study()
        inputs = PlanInputSerializer(data=request.data)
        inputs.is_valid(raise_exception=True)
        data = {k: v for k, v in inputs.validated_data.items() if v is not None}
        # A PlanProblem (no effect to detect, ...) is a ServiceError: a 400 with its message.
        plan = study_plan(study, PlanInput(**data))
        return Response(PlanSerializer(plan).data)
