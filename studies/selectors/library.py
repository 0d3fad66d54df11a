"""Reads of the chart library. Every lookup goes through ``visible_to``: others' sets are 404s."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Count, Prefetch, QuerySet
from django.http import Http404

from analysis.tables import natural_key
from core.models import User
from studies.benchmark_format.records import chartom_naming_problem
from studies.models import Chart, ChartGroup, ChartSet, ManipulationType, Question


def chartsets_for_user(*, user: User) -> QuerySet[ChartSet]:
    return (
        ChartSet.objects.visible_to(user)
        .select_related("owner")
        .annotate(
            group_count=Count("groups", distinct=True),
            pair_count=Count("questions", distinct=True),
        )
        .order_by("-created_at")
    )


def chartset_get(*, user: User, slug: str) -> ChartSet:
    chart_set = ChartSet.objects.visible_to(user).select_related("owner").filter(slug=slug).first()
    if chart_set is None:
        raise Http404("No such chart set.")
    return chart_set


def _charts_prefetch() -> Prefetch:
    return Prefetch(
        "charts", queryset=Chart.objects.select_related("manipulation").order_by("version")
    )


def questions_of(*, chart_set: ChartSet) -> list[Question]:
    """Every pair of a set with its group and both charts, in natural order (G2 before G10)."""
    questions = (
        Question.objects.filter(chart_set=chart_set)
        .select_related("group__manipulation")
        .prefetch_related(_charts_prefetch())
    )
    return sorted(questions, key=lambda q: natural_key(q.code))


@dataclass
class GroupRow:
    group: ChartGroup
    questions: list[Question] = field(default_factory=list)


def groups_with_pairs(*, chart_set: ChartSet) -> list[GroupRow]:
    """Groups in natural order, each with its pairs and their charts (three queries)."""
    groups = {
        g.pk: GroupRow(g)
        for g in ChartGroup.objects.filter(chart_set=chart_set).select_related("manipulation")
    }
    for question in questions_of(chart_set=chart_set):
        row = groups.get(question.group_id)
        if row is not None:
            question.group = row.group
            row.questions.append(question)
    return sorted(groups.values(), key=lambda r: natural_key(r.group.code))


def question_get(*, chart_set: ChartSet, code: str) -> Question:
    question = (
        Question.objects.filter(chart_set=chart_set, code=code)
        .select_related("group__manipulation", "chart_set")
        .prefetch_related(_charts_prefetch())
        .first()
    )
    if question is None:
        raise Http404("No such pair.")
    return question


def chart_get(*, chart_set: ChartSet, chart_id: str) -> Chart:
    chart = (
        Chart.objects.filter(question__chart_set=chart_set, chart_id=chart_id)
        .select_related("question__group__manipulation", "question__chart_set", "manipulation")
        .first()
    )
    if chart is None:
        raise Http404("No such chart.")
    return chart


def manipulation_types() -> QuerySet[ManipulationType]:
    return ManipulationType.objects.select_related("created_by").order_by("-builtin", "label")


def chartsets_writable(*, user: User) -> QuerySet[ChartSet]:
    """Sets a researcher may add generated pairs to (own and shared), newest first."""
    return ChartSet.objects.visible_to(user).order_by("-created_at")


def chartom_problem_of_set(chart_set: ChartSet) -> str | None:
    """Why the set cannot be downloaded in the CHARTOM layout (its chart ids), or None."""
    ids = Chart.objects.filter(question__chart_set=chart_set).values_list("chart_id", flat=True)
    return chartom_naming_problem(ids)


def chartom_problem_of_study(study) -> str | None:
    """Why the study's HMI dataset cannot be written in the CHARTOM layout, or None."""
    ids = Chart.objects.filter(question__study_pairs__study=study).values_list(
        "chart_id", flat=True
    )
    return chartom_naming_problem(ids)
