"""Importing model answers into a study: check every row, then replace each model's answers at once."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from studies import answer_types, answers
from studies.model_answers_format import (
    MIND,
    ModelCoverage,
    Problem,
    check_against_charts,
    check_fact_answer,
    coverage,
)
from studies.model_answers_reading import read_model_answers
from studies.models import Chart, ModelAnswer, ModelRun, Study
from studies.selectors.model_eval import coverage_dict

# A MIND answer without a readable number is kept (prediction left empty) and
# reported; every other problem means the file is not what the researcher meant.
NON_BLOCKING = {MIND}


@dataclass
class ImportReport:
    imported: dict[str, int] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    coverage: list[ModelCoverage] = field(default_factory=list)

    @property
    def blocking(self) -> list[Problem]:
        return [p for p in self.problems if p.kind not in NON_BLOCKING]

    def as_dict(self) -> dict:
        return {
            "imported": self.imported,
            "problems": [
                {"row": p.row, "kind": p.kind, "message": p.message, "text": str(p)}
                for p in self.problems
            ],
            "coverage": [coverage_dict(c) for c in self.coverage],
        }


def study_charts(study: Study) -> dict[str, Chart]:
    charts = Chart.objects.filter(question__study_pairs__study=study).select_related("question")
    return {c.chart_id: c for c in charts}


def _score(row, chart: Chart) -> tuple[bool | None, list[str]]:
    question = chart.question
    # The same key and options a participant's answer is checked against.
    options, key = answer_types.question_key(question)
    try:
        check = check_fact_answer(
            row.fact_answer,
            question.answer_type,
            key,
            options=options,
            tolerance=question.tolerance,
        )
    except answers.KeyFormatError:
        return None, [f"the answer key of {question.code} cannot be read"]
    notes = [check.problem] if check.problem else []
    if row.mind_problem:
        notes.append(row.mind_problem)
    return check.correct, notes


def model_answers_import(*, study: Study, source, filename: str, user=None) -> ImportReport:
    """Read, check and store a file of model answers.

    Nothing is stored when any blocking problem is found; the report lists them
    all with row numbers. Each model in the file replaces its earlier answers.
    """
    parsed = read_model_answers(source, filename)
    charts = study_charts(study)
    report = ImportReport(problems=list(parsed.problems))
    report.problems += check_against_charts(parsed.rows, charts, filename=filename)
    report.problems.sort(key=lambda p: (p.row is not None, p.row or 0))
    report.coverage = coverage(parsed.rows, charts)
    if report.blocking:
        return report
    if not parsed.rows:
        report.problems.append(Problem(filename, None, "The file has no answers.", "file"))
        return report
    with transaction.atomic():
        for model in parsed.models:
            ModelRun.objects.filter(study=study, model=model).delete()
            run = ModelRun.objects.create(
                study=study,
                model=model,
                source_name=filename[:255],
                imported_at=timezone.now(),
                imported_by=user,
            )
            rows = []
            for row in (r for r in parsed.rows if r.model == model):
                chart = charts[row.chart_id]
                correct, notes = _score(row, chart)
                rows.append(
                    ModelAnswer(
                        run=run,
                        study=study,
                        model=model,
                        chart=chart,
                        row=row.row,
                        fact_answer=row.fact_answer or "",
                        fact_correct=correct,
                        mind_answer=row.mind_answer or "",
                        mind_prediction=row.mind_prediction,
                        mind_justification=row.mind_justification or "",
                        problems=notes,
                    )
                )
            ModelAnswer.objects.bulk_create(rows)
            report.imported[model] = len(rows)
    return report


def model_answers_import_or_raise(**kwargs) -> ImportReport:
    """As :func:`model_answers_import`, raising ValidationError listing every blocking problem."""
    report = model_answers_import(**kwargs)
    if report.blocking or not report.imported:
        raise ValidationError({"file": [str(p) for p in report.blocking or report.problems]})
    return report


def model_run_delete(*, study: Study, model: str) -> int:
    deleted, _ = ModelRun.objects.filter(study=study, model=model).delete()
    return deleted
