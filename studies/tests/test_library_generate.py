"""Generating pairs from specs: parsing, storing, re-rendering only what changed."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from core.models import Job
from studies.answer_types import check_answer
from studies.models import Chart, ChartSet, Question
from studies.services.library import (
    chartset_create,
    chartset_generate,
    chartset_generate_enqueue,
    pair_generate_save,
    specs_parse,
)
from studies.tests.test_library_helpers import fixture_specs

pytestmark = pytest.mark.django_db

SPECS = {s["id"]: s for s in fixture_specs()}


@pytest.fixture
def chart_set(researcher):
    return chartset_create(owner=researcher, title="Generated")


def test_it_refuses_a_plain_spec_and_groups_that_disagree():
    with pytest.raises(ValidationError, match="draws a single chart"):
        specs_parse([dict(SPECS["G1_Q1"], manipulation="none")])
    clash = dict(SPECS["G7_Q1"], id="G1_Q2", group="G1")
    with pytest.raises(ValidationError, match="group G1 already holds line / truncated_y_axis"):
        specs_parse([SPECS["G1_Q1"], clash])


def test_each_answer_type_is_stored_checkable(chart_set, researcher):
    specs = specs_parse([SPECS["G3_Q1"], SPECS["G1_Q1"], SPECS["G13_Q1"]])
    chartset_generate(chart_set=chart_set, specs=specs, user=researcher)
    mc = Question.objects.get(code="G3_Q1")
    assert mc.options == ["It increased.", "It decreased.", "It stayed about the same."]
    assert check_answer(mc.answer_type, 1, mc.key_value, options=mc.options)
    free = Question.objects.get(code="G1_Q1")
    assert check_answer(free.answer_type, "1.3", free.answer_key)
    rank = Question.objects.get(code="G13_Q1")
    assert check_answer(rank.answer_type, rank.key_value, rank.answer_key)
    assert sorted(rank.options) == sorted(rank.key_value)


def test_rendering_is_deterministic_and_unchanged_specs_are_not_rendered_again(
    chart_set, researcher, monkeypatch
):
    specs = specs_parse([SPECS["G7_Q1"]])
    chartset_generate(chart_set=chart_set, specs=specs, user=researcher)
    first = dict(Chart.objects.values_list("chart_id", "image_sha256"))

    import studies.services.library.generating as generating

    calls = []
    real = generating.render_pair
    monkeypatch.setattr(generating, "render_pair", lambda spec: calls.append(spec.id) or real(spec))
    summary = chartset_generate(chart_set=chart_set, specs=specs, user=researcher)
    assert summary.unchanged == ["G7_Q1"] and calls == []

    Chart.objects.update(image_sha256="", image="charts/missing.png")
    summary = chartset_generate(chart_set=chart_set, specs=specs, user=researcher)
    assert calls == ["G7_Q1"] and summary.updated == ["G7_Q1"]
    assert dict(Chart.objects.values_list("chart_id", "image_sha256")) == first


def test_a_changed_spec_updates_its_pair(chart_set, researcher):
    pair_generate_save(chart_set=chart_set, spec=specs_parse(SPECS["G8_Q1"])[0], user=researcher)
    before = Chart.objects.get(chart_id="G8_Q1_2").image_sha256
    changed = dict(SPECS["G8_Q1"], title="Another title")
    question, created = pair_generate_save(
        chart_set=chart_set, spec=specs_parse(changed)[0], user=researcher
    )
    assert not created and question.spec["title"] == "Another title"
    assert Chart.objects.get(chart_id="G8_Q1_2").image_sha256 != before


def test_a_generate_job_renders_into_the_set(
    chart_set, researcher, django_capture_on_commit_callbacks
):
    specs = specs_parse([SPECS["G5_Q1"], SPECS["G6_Q1"]])
    with django_capture_on_commit_callbacks(execute=True):
        job = chartset_generate_enqueue(chart_set=chart_set, specs=specs, user=researcher)
    job.refresh_from_db()
    assert job.state == Job.State.DONE and job.result["created"] == ["G5_Q1", "G6_Q1"]
    assert ChartSet.objects.get(pk=chart_set.pk).questions.count() == 2
