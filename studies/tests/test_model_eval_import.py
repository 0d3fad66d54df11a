"""Importing model answers through the service: bad inputs, coverage, MIND problems, re-import."""

import pytest

from demo.model_eval import load_model_eval_demo
from studies.models import ModelAnswer, ModelRun
from studies.services.model_eval import model_answers_import
from studies.tests.factories import make_study
from studies.tests.model_eval_helpers import CHART_IDS, HEADER, as_file, full_rows, row

pytestmark = pytest.mark.django_db


@pytest.fixture
def study(researcher):
    return make_study(researcher, pairs=3, checks=None)


def run(study, rows, name="answers.jsonl"):
    return model_answers_import(study=study, source=as_file(rows), filename=name)


def test_it_imports_answers_and_checks_fact_like_participants(study):
    rows = full_rows("m1")
    rows[1] = row("m1", "G1_Q1_2", fact="2018")
    report = run(study, rows)
    assert report.imported == {"m1": 6}
    answers = {a.chart.chart_id: a for a in ModelAnswer.objects.filter(study=study)}
    assert answers["G1_Q1_1"].fact_correct is True
    assert answers["G1_Q1_2"].fact_correct is False
    assert answers["G1_Q3_1"].fact_correct is True
    assert answers["G1_Q2_1"].mind_prediction == 0.4


def test_it_rejects_unknown_chart_ids_with_row_numbers_and_imports_nothing(study):
    rows = full_rows("m1") + [row("m1", "G9_Q1_1"), row("m1", "g1_q1_1")]
    report = run(study, rows)
    assert report.imported == {}
    assert [(p.row, p.kind) for p in report.blocking] == [
        (7, "unknown_chart"),
        (8, "unknown_chart"),
    ]
    assert "did you mean G1_Q1_1" in report.blocking[1].message
    assert not ModelAnswer.objects.exists()


def test_it_rejects_duplicates_and_keeps_the_earlier_import(study):
    run(study, full_rows("m1"))
    report = run(study, full_rows("m1") + [row("m1", "G1_Q2_2", fact="7")])
    assert report.imported == {}
    assert [p.kind for p in report.blocking] == ["duplicate"]
    assert report.blocking[0].row == 7
    assert ModelAnswer.objects.filter(study=study, model="m1", fact_correct=True).count() == 6


def test_it_reports_coverage_of_a_model_answering_only_some_charts(study):
    report = run(study, [row("partial", c) for c in CHART_IDS[:4]])
    assert report.imported == {"partial": 4}
    (cov,) = report.coverage
    assert (cov.answered, cov.total) == (4, 6)
    assert cov.missing == ["G1_Q3_1", "G1_Q3_2"]


def test_it_keeps_an_unreadable_mind_answer_without_a_prediction_and_reports_it(study):
    rows = full_rows("m1")
    rows[0] = row("m1", "G1_Q1_1", mind="Hard to say.")
    rows[1] = row("m1", "G1_Q1_2", mind="I predict 1.7")
    report = run(study, rows)
    assert report.imported == {"m1": 6}
    assert [(p.row, p.kind) for p in report.problems] == [(1, "mind"), (2, "mind")]
    answer = ModelAnswer.objects.get(study=study, chart__chart_id="G1_Q1_2")
    assert answer.mind_prediction is None
    assert answer.problems


def test_it_reads_csv_with_free_text_predictions(study):
    text = HEADER + '"m2",G1_Q1_1,2019,"I predict 0.35 because it looks fine",\n'
    report = model_answers_import(study=study, source=text.encode(), filename="a.csv")
    assert report.imported == {"m2": 1}
    answer = ModelAnswer.objects.get(model="m2")
    assert answer.mind_prediction == 0.35
    assert answer.mind_justification


def test_it_replaces_a_reimported_model_and_leaves_others(study):
    run(study, full_rows("m1") + full_rows("m2"))
    run(study, [row("m1", "G1_Q1_1", fact="2018")])
    assert ModelAnswer.objects.filter(model="m1").count() == 1
    assert ModelAnswer.objects.filter(model="m2").count() == 6
    assert ModelRun.objects.filter(study=study).count() == 2


def test_it_rejects_an_empty_file(study):
    report = model_answers_import(study=study, source=b"", filename="a.csv")
    assert report.blocking and not report.imported


def test_the_demo_loads_two_models_idempotently(study):
    report = load_model_eval_demo(study)
    assert not report.blocking
    assert set(report.imported) == {"perceptive-model", "flat-model"}
    count = ModelAnswer.objects.filter(study=study).count()
    load_model_eval_demo(study)
    assert ModelAnswer.objects.filter(study=study).count() == count
    assert ModelRun.objects.filter(study=study).count() == 2
