"""The study planner page: how many participants the question needs, before going live."""

from __future__ import annotations

from django import forms
from django.shortcuts import render
from django.views.decorators.http import require_GET

from core.decorators import researcher_required
from studies.selectors import study as sel
from studies.selectors.planner import DEFAULTS, PlanInput, PlanProblem, limits, study_plan


class PlannerForm(forms.Form):
    """The planner's inputs, read from the query string so a plan can be bookmarked."""

    mode = forms.ChoiceField(
        choices=[
            ("precision", "Precision of each chart's HMI"),
            ("power", "Power to detect each manipulation's effect"),
        ],
        initial=DEFAULTS.mode,
        widget=forms.RadioSelect,
    )
    half_width = forms.FloatField(
        initial=DEFAULTS.half_width,
        **limits("half_width"),
        label="Target half-width of the 95% interval",
        help_text="0.10: each chart's HMI known within ±10 points.",
    )
    prior = forms.ChoiceField(
        choices=[
            ("worst", "Worst case (an HMI of 0.5)"),
            ("table1", "The paper's Table 1 HMIs for this study's groups"),
        ],
        initial=DEFAULTS.prior,
        label="Expected HMIs",
    )
    power = forms.FloatField(initial=DEFAULTS.power, **limits("power"), label="Power wanted")
    effect = forms.FloatField(
        required=False,
        **limits("effect"),
        label="Effect to detect (difference of HMIs)",
        help_text="Empty: each group's difference in the paper's Table 1.",
    )
    exclusion_rate = forms.FloatField(
        required=False,
        **limits("exclusion_rate"),
        label="Expected exclusion rate (a fraction)",
        help_text="0.15: 15 in 100 excluded. Empty: from the pilot, or CHARTOM's 10 of 78 "
        "without one.",
    )
    # Cents at most; the size is the limit's (a digit count beside it said the same twice).
    pay = forms.DecimalField(
        initial=0, **limits("pay"), decimal_places=2, label="Pay per participant"
    )

    def plan_input(self) -> PlanInput:
        data = {k: v for k, v in self.cleaned_data.items() if v is not None}
        data["pay"] = float(data.get("pay", 0))
        return PlanInput(**data)


@researcher_required
@require_GET
def study_planner(request, slug: str):
    study = sel.study_get(user=request.user, slug=slug)
    bound = "mode" in request.GET
    form = PlannerForm(request.GET if bound else None)
    plan = None
    if bound and form.is_valid():
        try:
            plan = study_plan(study, form.plan_input())
        except PlanProblem as exc:
            form.add_error(None, str(exc))
    elif not bound:
        plan = study_plan(study, PlanInput())
    context = {"study": study, "form": form, "plan": plan}
    return render(request, "studies/study/planner.html", context)
