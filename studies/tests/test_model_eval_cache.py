"""The model report is cached under a digest of its inputs, so any change shows at once."""

from unittest import mock

import pytest
from django.core.cache import cache

from studies.models import ModelAnswer
from studies.selectors import model_eval as selector
from studies.selectors.results import study_counted_response_count
from studies.services.model_eval import model_answers_import, model_run_delete
from studies.services.results.compute import results_compute, results_snapshot_save
from studies.tests.factories import simulated_study
from studies.tests.model_eval_helpers import as_file, full_rows

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _empty_cache():
    cache.clear()


@pytest.fixture
def study(researcher):
    study = simulated_study(researcher, participants=12, pairs=3, checks=None)
    model_answers_import(study=study, source=as_file(full_rows("m1")), filename="a.jsonl")
    return study


@pytest.fixture
def builds():
    with mock.patch.object(selector, "_build_report", wraps=selector._build_report) as spy:
        yield spy


def test_a_second_visit_is_served_from_the_cache(study, builds, django_assert_max_num_queries):
    first = selector.model_eval_report(study)
    with django_assert_max_num_queries(5):
        second = selector.model_eval_report(study)
    assert builds.call_count == 1
    assert second == first


def test_new_answers_change_the_report(study, builds):
    assert selector.model_eval_report(study, svg=False)["models"] == ["m1"]
    model_answers_import(study=study, source=as_file(full_rows("m2")), filename="b.jsonl")
    assert selector.model_eval_report(study, svg=False)["models"] == ["m1", "m2"]
    model_run_delete(study=study, model="m2")
    assert selector.model_eval_report(study, svg=False)["models"] == ["m1"]
    # Back to the first answers, so back to the first entry.
    assert builds.call_count == 2


def test_an_answer_changed_in_place_changes_the_report(study):
    def errors():
        report = selector.model_eval_report(study, svg=False)
        rows = [r for r in report["fact"]["overall"]["rows"] if r[0] == "m1" and r[1] == "all"]
        return rows[0][3]

    assert errors() == 0
    ModelAnswer.objects.filter(study=study, chart__chart_id="G1_Q1_2").update(fact_correct=False)
    assert errors() == 1


def test_recomputed_results_change_the_report(study, builds):
    selector.model_eval_report(study, svg=False)
    data = results_compute(study)
    data["charts"] = [c | {"hmi": 0.5} for c in data["charts"]]
    results_snapshot_save(
        study=study, data=data, response_count=study_counted_response_count(study)
    )
    report = selector.model_eval_report(study, svg=False)
    assert builds.call_count == 2
    predictions = report["mind"]["predictions"]
    hmi = predictions["columns"].index("hmi")
    assert {row[hmi] for row in predictions["rows"]} == {0.5}


def test_svg_and_seed_have_their_own_entries_and_rounding_shares_one(study, builds):
    selector.model_eval_report(study, svg=False)
    selector.model_eval_report(study, svg=True)
    selector.model_eval_report(study, svg=False, seed=study.seed + 1)
    assert builds.call_count == 3
    full = selector.model_eval_report(study, svg=False, digits=None)
    shown = selector.model_eval_report(study, svg=False)
    assert builds.call_count == 3
    rate = full["fact"]["overall"]["columns"].index("error_rate")
    rates = [(a[rate], b[rate]) for a, b in zip(full["fact"]["overall"]["rows"],
             shown["fact"]["overall"]["rows"], strict=True)]  # fmt: skip
    assert all(b == round(a, 4) for a, b in rates if a is not None)
    assert any(a != b for a, b in rates)
