"""Chart library pages: chart sets, the pair browser, editing pairs, the participant preview."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db.models import Count
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from core.confirm import confirm_delete_page, refusal_of
from core.decorators import researcher_required
from studies.answer_types import question_key
from studies.answers import AnswerFormatError, KeyFormatError
from studies.selectors.library import (
    chart_get,
    chartom_problem_of_set,
    chartset_get,
    chartsets_for_user,
    groups_with_pairs,
    manipulation_types,
    question_get,
)
from studies.services.library import (
    chart_image_replace,
    chartset_create,
    chartset_delete,
    chartset_delete_problem,
    chartset_export_zip,
    manipulation_type_create,
    pair_delete,
    pair_delete_problem,
    question_update,
)
from studies.views.library_forms import (
    ChartSetCreateForm,
    ImageForm,
    ManipulationForm,
    QuestionForm,
)


def apply_errors(form, exc: ValidationError) -> None:
    """Show a service's ValidationError on the form's fields (or above the form)."""
    if hasattr(exc, "error_dict"):
        for field, errors in exc.message_dict.items():
            form.add_error(field if field in form.fields else None, errors)
    else:
        form.add_error(None, exc.messages)


@researcher_required
def library(request):
    return render(
        request,
        "studies/library/library.html",
        {"chart_sets": chartsets_for_user(user=request.user), "form": ChartSetCreateForm()},
    )


@researcher_required
def chartset_new(request):
    form = ChartSetCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            chart_set = chartset_create(owner=request.user, **form.cleaned_data)
        except ValidationError as exc:
            apply_errors(form, exc)
        else:
            messages.success(request, f"Chart set “{chart_set.title}” created.")
            return redirect("studies:chartset-detail", slug=chart_set.slug)
    status = 400 if form.errors else 200
    return render(request, "studies/library/chartset_form.html", {"form": form}, status=status)


@researcher_required
def chartset_detail(request, slug):
    chart_set = chartset_get(user=request.user, slug=slug)
    groups = groups_with_pairs(chart_set=chart_set)
    return render(
        request,
        "studies/library/chartset_detail.html",
        {
            "chart_set": chart_set,
            "groups": groups,
            "pair_count": sum(len(g.questions) for g in groups),
            "is_owner": chart_set.owner_id == request.user.pk,
            "chartom_problem": chartom_problem_of_set(chart_set),
        },
    )


@researcher_required
@require_http_methods(["GET", "POST"])
def chartset_remove(request, slug):
    """GET: what deleting the set takes with it (or why it cannot be); POST: delete it."""
    chart_set = chartset_get(user=request.user, slug=slug)
    if request.method == "POST":
        problem = refusal_of(lambda: chartset_delete(chart_set=chart_set, user=request.user))
        if not problem:
            messages.success(request, f"Chart set “{chart_set.title}” deleted.")
            return redirect("studies:library")
    else:
        problem = chartset_delete_problem(chart_set=chart_set, user=request.user)
    sizes = chart_set.questions.aggregate(pairs=Count("id", distinct=True), charts=Count("charts"))
    pairs, charts = sizes["pairs"], sizes["charts"]
    context = {
        "heading": f"Delete the chart set “{chart_set.title}”?",
        "intro": "Chart set",
        "facts": [("Title", chart_set.title), ("Pairs", pairs), ("Chart images", charts)],
        "consequences": [
            f"Its {pairs} pair{pluralize(pairs)}, their questions and {charts} chart "
            f"image{pluralize(charts)} are deleted for good.",
            "No study uses it, so no participant's data is lost.",
        ],
        "problem": problem,
        "button": "Delete the chart set",
        "cancel_url": reverse("studies:chartset-detail", args=[slug]),
        "back_label": "Back to the chart set",
    }
    return confirm_delete_page(request, context)


@researcher_required
def chartset_export(request, slug):
    chart_set = chartset_get(user=request.user, slug=slug)
    try:
        data = chartset_export_zip(chart_set=chart_set)
    except ValidationError as exc:  # a chart the layout cannot hold: say which, stay on the set
        messages.error(request, " ".join(exc.messages))
        return redirect("studies:chartset-detail", slug=slug)
    response = HttpResponse(data, content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{chart_set.slug}.zip"'
    return response


def _pair_context(request, chart_set, question, *, form=None, image_forms=None):
    initial = {
        "text": question.text,
        "answer_type": question.answer_type,
        "answer_key": question.answer_key,
        "tolerance": question.tolerance,
    }
    return {
        "chart_set": chart_set,
        "question": question,
        "charts": list(question.charts.all()),
        "form": form or QuestionForm(initial=initial),
        "image_forms": image_forms or {},
        "image_form": ImageForm(),
    }


@researcher_required
def pair_detail(request, slug, code):
    chart_set = chartset_get(user=request.user, slug=slug)
    question = question_get(chart_set=chart_set, code=code)
    return render(
        request, "studies/library/pair_detail.html", _pair_context(request, chart_set, question)
    )


@researcher_required
def question_edit(request, slug, code):
    chart_set = chartset_get(user=request.user, slug=slug)
    question = question_get(chart_set=chart_set, code=code)
    if request.method != "POST":
        return redirect("studies:pair-detail", slug=slug, code=code)
    form = QuestionForm(request.POST)
    if form.is_valid():
        try:
            question_update(question=question, user=request.user, **form.cleaned_data)
        except ValidationError as exc:
            apply_errors(form, exc)
        else:
            messages.success(request, f"Question {question.code} saved.")
            return redirect("studies:pair-detail", slug=slug, code=code)
    question.refresh_from_db()
    context = _pair_context(request, chart_set, question, form=form)
    return render(request, "studies/library/pair_detail.html", context, status=400)


@researcher_required
@require_http_methods(["GET", "POST"])
def pair_remove(request, slug, code):
    """GET: what deleting the pair means (or why it cannot be); POST: delete it."""
    chart_set = chartset_get(user=request.user, slug=slug)
    question = question_get(chart_set=chart_set, code=code)
    if request.method == "POST":
        problem = refusal_of(lambda: pair_delete(question=question, user=request.user))
        if not problem:
            messages.success(request, f"Pair {code} deleted.")
            return redirect("studies:chartset-detail", slug=slug)
    else:
        problem = pair_delete_problem(question=question)
    context = {
        "heading": f"Delete pair {code}?",
        "intro": f"Pair in “{chart_set.title}”",
        "facts": [("Pair", code), ("Question", question.text)],
        "consequences": [
            f"The question and both charts ({code}_1 and {code}_2) are deleted for good.",
            "No study uses it, so no participant's data is lost.",
        ],
        "problem": problem,
        "button": "Delete the pair",
        "cancel_url": reverse("studies:pair-detail", args=[slug, code]),
        "back_label": f"Back to pair {code}",
    }
    return confirm_delete_page(request, context)


@researcher_required
@require_POST
def chart_image(request, slug, chart_id):
    chart_set = chartset_get(user=request.user, slug=slug)
    chart = chart_get(chart_set=chart_set, chart_id=chart_id)
    form = ImageForm(request.POST, request.FILES)
    if form.is_valid():
        upload = form.cleaned_data["image"]
        try:
            chart_image_replace(
                chart=chart, data=upload.read(), user=request.user, filename=upload.name
            )
        except ValidationError as exc:
            apply_errors(form, exc)
        else:
            messages.success(request, f"The image of {chart.chart_id} was replaced.")
            return redirect("studies:pair-detail", slug=slug, code=chart.question.code)
    question = question_get(chart_set=chart_set, code=chart.question.code)
    context = _pair_context(request, chart_set, question, image_forms={chart.pk: form})
    return render(request, "studies/library/pair_detail.html", context, status=400)


def _check_preview_answer(question, data) -> tuple[bool | None, str, str]:
    """(correct or None, error message, the answer as the participant wrote it)."""
    kind = question.kind
    written = data.get("answer", "")
    options, key = question_key(question)
    try:
        answer, written = kind.read_preview(data, question)
        correct = kind.check(answer, key, options=options, tolerance=question.tolerance)
        return correct, "", written
    except AnswerFormatError as exc:
        return None, exc.message, written
    except KeyFormatError as exc:
        return None, f"The answer key cannot be checked: {exc.message}", written


@researcher_required
def chart_preview(request, slug, chart_id):
    """The chart and its question as a participant sees them; answers are checked, never stored."""
    chart_set = chartset_get(user=request.user, slug=slug)
    chart = chart_get(chart_set=chart_set, chart_id=chart_id)
    question = chart.question
    correct, error, answer = None, "", ""
    if request.method == "POST":
        correct, error, answer = _check_preview_answer(question, request.POST)
    # What the answer input shows again after a POST (a ranking's places).
    shown = question.kind.preview_state(request.POST, question) if request.method == "POST" else {}
    return render(
        request,
        "studies/library/chart_preview.html",
        {
            "chart_set": chart_set,
            "chart": chart,
            "question": question,
            "answer": answer,
            "error": error,
            "correct": correct,
            **shown,
            "pair_url": reverse("studies:pair-detail", args=[slug, question.code]),
        },
        status=400 if error else 200,
    )


@researcher_required
def manipulation_list(request):
    form = ManipulationForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            manipulation = manipulation_type_create(
                user=request.user,
                label=data["label"],
                description=data["description"],
                vocabulary=[w.strip() for w in data["vocabulary"].split(",")],
            )
        except ValidationError as exc:
            apply_errors(form, exc)
        else:
            messages.success(request, f"Manipulation “{manipulation.label}” added.")
            return redirect("studies:manipulation-list")
    return render(
        request,
        "studies/library/manipulations.html",
        {"manipulations": manipulation_types(), "form": form},
        status=400 if form.errors else 200,
    )
