"""The humans beside the models in the report, the API and the page (Figures 3 and 6)."""

import pytest
from django.core.cache import cache
from django.db.models import Q
from django.urls import reverse

from demo.model_eval import load_model_eval_demo
from studies.models import StudyResults, Trial
from studies.selectors.model_eval import model_eval_report
from studies.services.model_eval import model_answers_import
from studies.services.results.exclusion import study_exclusion
from studies.tests.factories import make_study, simulated_study
from studies.tests.model_eval_helpers import as_file, full_rows

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _empty_cache():
    cache.clear()


@pytest.fixture
def study(researcher):
    study = simulated_study(researcher, participants=20, pairs=3, checks=None)
    load_model_eval_demo(study)
    return study


def rows_of(table):
    return [dict(zip(table["columns"], row, strict=True)) for row in table["rows"]]


def trial_counts(study, version=None):
    """(trials, not correct) of included participants, straight from the trials table."""
    trials = Trial.objects.filter(
        session_id__in=study_exclusion(study).included_ids, kind=Trial.Kind.CHART
    )
    if version is not None:
        trials = trials.filter(chart__version=version)
    return trials.count(), trials.filter(~Q(response__correct=True)).count()


def test_the_humans_come_first_with_the_included_participants_error_rates(study):
    report = model_eval_report(study, svg=False, digits=None)
    overall = rows_of(report["fact"]["overall"])
    assert [r["model"] for r in overall[:3]] == ["Humans"] * 3
    assert {r["model"] for r in overall[3:]} == {"flat-model", "perceptive-model"}
    for row, version in zip(overall[:3], (1, 2, None), strict=True):
        n, wrong = trial_counts(study, version)
        assert (row["n"], row["n_errors"]) == (n, wrong)
        assert row["error_rate"] == pytest.approx(wrong / n)
        assert row["ci_low"] < row["error_rate"] < row["ci_high"]
    included = len(study_exclusion(study).included_ids)
    assert report["humans"]["participants"] == included
    assert report["humans"]["trials"] == included * 6
    assert "Humans" not in report["models"]


def test_the_humans_are_in_the_group_and_chi_square_tables(study):
    report = model_eval_report(study, svg=False, digits=None)
    by_group = [r for r in rows_of(report["fact"]["by_group"]) if r["model"] == "Humans"]
    assert [(r["group"], r["scope"]) for r in by_group] == [
        ("G1", "non-manipulated"),
        ("G1", "manipulated"),
    ]
    chi = rows_of(report["fact"]["chi_square"])
    assert chi[0]["model"] == "Humans"
    snapshot = StudyResults.objects.get(study=study).data["chi_square"][0]
    assert snapshot["scope"] == "overall"
    assert chi[0]["chi2"] == pytest.approx(snapshot["chi2"])
    assert chi[0]["errors_manipulated"] == trial_counts(study, 2)[1]


def test_the_figures_show_the_humans(study):
    report = model_eval_report(study)
    assert 'id="humans-manipulated"' in report["svg"]["fact"]
    assert 'id="humans-separator"' in report["svg"]["fact_groups"]


def test_without_computed_results_there_are_no_humans_and_the_page_says_why(client, researcher):
    study = make_study(researcher, pairs=3, checks=None)
    model_answers_import(study=study, source=as_file(full_rows("m1")), filename="a.jsonl")
    report = model_eval_report(study)
    assert report["humans"] is None
    assert {r[0] for r in report["fact"]["overall"]["rows"]} == {"m1"}
    assert "humans-" not in report["svg"]["fact"]
    client.force_login(researcher)
    html = client.get(reverse("studies:models", args=[study.slug])).content.decode()
    assert "Compute the study&#x27;s results to see the humans beside the models." in html


def test_a_model_called_humans_does_not_take_the_humans_place(study):
    model_answers_import(study=study, source=as_file(full_rows("Humans")), filename="a.jsonl")
    report = model_eval_report(study, svg=False)
    assert report["humans"]["label"] == "Humans (participants)"
    models = [r[0] for r in report["fact"]["overall"]["rows"]]
    assert models[:3] == ["Humans (participants)"] * 3
    assert "Humans" in models[3:]


def test_the_api_and_the_page_carry_the_humans_row(study, client, researcher, researcher_api):
    body = researcher_api.get(reverse("api:study-model-results", args=[study.slug])).json()
    assert body["humans"]["label"] == "Humans"
    assert body["fact"]["overall"]["rows"][0][:2] == ["Humans", "non-manipulated"]
    client.force_login(researcher)
    html = client.get(reverse("studies:models", args=[study.slug])).content.decode()
    assert 'id="humans-note"' in html
    assert html.count('class="humans-row"') == 3 + 2 + 1  # overall, by group, chi-square


def test_tiny_p_values_keep_their_significant_digits_on_the_page():
    from studies.selectors.model_eval import clean

    assert clean(5.123456e-72) == 5.123e-72
    assert clean(0.123456) == 0.1235
    assert clean(0.0) == 0.0
    assert clean(-0.00001234567) == -1.235e-05
    assert clean(5.123456e-72, digits=None) == 5.123456e-72
