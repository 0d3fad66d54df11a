"""The generator page: write or pick a spec, preview both versions side by side, save the pair."""

from __future__ import annotations

import base64
import json
from functools import lru_cache

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db import transaction
from django.shortcuts import redirect, render
from django.utils.text import slugify

from core.decorators import researcher_required
from studies.benchmark_format.records import chartom_naming_problem
from studies.chartgen import load_specs
from studies.models import AnswerType
from studies.selectors.library import chartset_get, chartsets_writable
from studies.services.library import chartset_create, pair_generate_save, pair_preview, specs_parse
from studies.services.library.generating import question_parts
from studies.views.library import apply_errors
from studies.views.library_forms import NEW_SET, GeneratorForm

FIXTURE_SPECS = settings.BASE_DIR / "fixtures" / "chart_specs.json"


@lru_cache(maxsize=1)
def fixture_specs() -> dict[str, dict]:
    """The demo spec set by id (read once per process; it ships with the code)."""
    try:
        return {s.id: s.to_dict() for s in load_specs(FIXTURE_SPECS)}
    except (OSError, ValueError):
        return {}


def _data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def _target_set(request, form):
    """The chart set to save into, created when the researcher asked for a new one."""
    choice = form.cleaned_data.get("chart_set") or NEW_SET
    if choice != NEW_SET:
        return chartset_get(user=request.user, slug=choice)
    title = form.cleaned_data.get("new_title", "").strip()
    if not title:
        raise ValidationError({"new_title": "Give the new chart set a title."})
    return chartset_create(
        owner=request.user, title=title, description="Generated chart pairs.", source="generated"
    )


@researcher_required
def generator(request):
    chart_sets = list(chartsets_writable(user=request.user))
    fixtures = fixture_specs()
    picked = request.GET.get("fixture", "")
    initial = {}
    if picked in fixtures:
        initial["spec"] = json.dumps(fixtures[picked], indent=2, ensure_ascii=False)
    if request.GET.get("set"):
        initial["chart_set"] = request.GET["set"]
    form = GeneratorForm(request.POST or None, chart_sets=chart_sets, initial=initial)
    preview = None
    status = 200
    if request.method == "POST" and form.is_valid():
        action = request.POST.get("action", "preview")
        try:
            [spec] = _one_spec(form.cleaned_data["spec"])
            if action == "save":
                # A new set and its first pair are created together or not at all.
                with transaction.atomic():
                    chart_set = _target_set(request, form)
                    question, created = pair_generate_save(
                        chart_set=chart_set, spec=spec, user=request.user
                    )
                verb = "added to" if created else "updated in"
                messages.success(request, f"Pair {question.code} {verb} “{chart_set.title}”.")
                problem = chartom_naming_problem(f"{question.code}_{v}" for v in (1, 2))
                if problem:
                    # Saved all the same: the set works in studies and JSON exports; only
                    # the CHARTOM-layout downloads need the naming (and are not offered).
                    messages.warning(request, f"{problem} Name pairs G1_Q1, G1_Q2 ... for them.")
                return redirect("studies:pair-detail", slug=chart_set.slug, code=question.code)
            rendered = pair_preview(spec=spec)
            text, _, _, key, _ = question_parts(spec)
            preview = {
                "spec": spec,
                "question": text,
                "key": key,
                "answer_type": AnswerType(spec.answer_type).label,
                "non_manipulated": _data_uri(rendered.non_manipulated),
                "manipulated": _data_uri(rendered.manipulated),
            }
        except ValidationError as exc:
            apply_errors(form, exc)
    if form.errors:
        status = 400
    return render(
        request,
        "studies/library/generator.html",
        {
            "form": form,
            "preview": preview,
            "fixtures": [
                {
                    "id": key,
                    "label": f"{key} · {spec['chart_type']} · {spec['manipulation'].replace('_', ' ')}",
                }
                for key, spec in fixtures.items()
            ],
            "picked": picked,
            "has_sets": bool(chart_sets),
            "new_set_value": NEW_SET,
            "suggested_title": slugify(request.user.username)
            and f"{request.user.username}'s generated pairs",
        },
        status=status,
    )


def _one_spec(text: str):
    specs = specs_parse(text)
    if len(specs) != 1:
        raise ValidationError(
            {
                "spec": "The page previews one pair at a time; use the API or generate_charts for a list."
            }
        )
    return specs
