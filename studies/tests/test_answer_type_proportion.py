"""The proportion answer type (a 0-100 slider with no starting position), end to end.

It is also the proof of the answer-type registry: the type is one module in
studies/answer_types, its two templates and a migration.
"""

import csv
import io

import pytest
from django.core.exceptions import ValidationError
from django.template.loader import get_template
from django.urls import reverse
from rest_framework.test import APIClient

from studies import answer_types
from studies.answer_types import get_type
from studies.benchmark_format import answer_type_from_label
from studies.chartgen import SpecError, spec_from_dict
from studies.model_answers_format import check_fact_answer
from studies.models import AnswerType, Chart, ParticipantSession, Question, Response
from studies.selectors.study import trial_current
from studies.services.exports import export_write
from studies.services.library.editing import question_validate
from studies.services.model_runner.run import fact_prompt
from studies.services.results.compute import results_compute
from studies.services.results.simulate import study_simulate
from studies.tests.factories import make_chart_set, make_study

PROPORTION = "proportion"


# ------------------------------------------------------------------ the registry


def test_every_registered_type_is_a_model_choice_with_both_templates():
    assert [key for key, _label in AnswerType.choices] == list(answer_types.KEYS)
    assert PROPORTION in answer_types.KEYS
    for kind in answer_types.all_types():
        get_template(kind.participant_template)
        get_template(kind.preview_template)
        assert kind.prompt_hint and kind.empty_message and kind.written_names


def test_an_unknown_type_is_a_clear_error():
    with pytest.raises(answer_types.UnknownAnswerType, match="expected one of"):
        get_type("likert")


# ------------------------------------------------------------------ the rule


@pytest.mark.parametrize(
    ("answer", "correct"),
    [("35", True), ("40", True), ("30", True), ("40.5", False), ("29", False), ("35%", True)],
)
def test_an_estimate_is_correct_within_the_stated_tolerance(answer, correct):
    # 0.05 of the 0-100 scale: within 5 points of the key, both ends included.
    assert get_type(PROPORTION).check(answer, "35", tolerance=0.05) is correct


def test_the_absolute_error_is_in_points():
    kind = get_type(PROPORTION)
    assert kind.answer_error(41.5, "35") == 6.5
    assert kind.answer_error(20.0, "35") == 15.0


@pytest.mark.parametrize("answer", ["101", "-3", "about half", ""])
def test_an_answer_off_the_scale_or_not_a_number_is_refused(answer):
    from studies.answers import AnswerFormatError

    with pytest.raises(AnswerFormatError, match="slider"):
        get_type(PROPORTION).normalize_answer(answer)


# ------------------------------------------------------------------ authoring


def test_a_researcher_writes_a_proportion_question_with_its_tolerance():
    fields = question_validate(
        text="What share of the pie is red?", answer_type=PROPORTION, answer_key="35",
        tolerance=0.05,
    )  # fmt: skip
    assert fields["key_value"] == 35.0 and fields["options"] == [] and fields["tolerance"] == 0.05
    with pytest.raises(ValidationError) as refused:
        question_validate(text="What share?", answer_type=PROPORTION, answer_key="120")
    assert "0–100" in str(refused.value.message_dict["answer_key"])


def test_the_generator_reads_a_proportion_key_and_refuses_one_off_the_scale():
    spec = {
        "id": "G1_Q1", "group": "G1", "chart_type": "pie", "manipulation": "pie_3d",
        "title": "Market share", "data": {"categories": ["A", "B", "C"], "values": [35, 40, 25]},
        "question": "What share is A?", "answer_type": PROPORTION, "answer": 35,
    }  # fmt: skip
    assert spec_from_dict(spec).answer == "35"
    with pytest.raises(SpecError, match="0 to 100"):
        spec_from_dict({**spec, "answer": 135})


def test_benchmark_files_name_the_type():
    assert answer_type_from_label("Proportion") == PROPORTION
    assert answer_type_from_label("slider") == PROPORTION
    assert get_type(PROPORTION).written_names[0] == "proportion"


# ------------------------------------------------------------------ taking it


@pytest.fixture
def study(researcher):
    chart_set = make_chart_set(researcher, pairs=2, answer_types=[AnswerType.PROPORTION])
    Question.objects.filter(chart_set=chart_set).update(tolerance=0.05)
    return make_study(researcher, chart_set=chart_set, checks=())


def _begin(client, study):
    client.post(
        reverse("participate:consent", args=[study.slug]),
        {"choice": "agree", "PROLIFIC_PID": "5f1d2c3b4a5968778695a4b3", "STUDY_ID": "s"},
    )
    session = ParticipantSession.objects.get(study=study)
    client.post(reverse("participate:begin", args=[session.token]))
    return session


@pytest.mark.django_db
def test_the_trial_page_has_a_slider_that_submits_nothing_until_moved(client, study):
    session = _begin(client, study)
    page = client.get(reverse("participate:session", args=[session.token])).content.decode()
    # The range input has no name (it is never submitted); the named field starts empty.
    assert 'type="range"' in page and "is-unset" in page
    assert 'name="proportion" id="answer-proportion"' in page
    assert 'value="" placeholder="0–100"' in page
    assert "js/proportion.js" in page
    url = reverse("participate:answer", args=[session.token])
    trial = trial_current(session)
    client.post(url, {"position": trial.position, "proportion": "", "interactions": ""})
    assert not Response.objects.exists()
    refused = client.get(reverse("participate:session", args=[session.token])).content.decode()
    assert "Please move the slider to your estimate" in refused

    client.post(url, {"position": trial.position, "proportion": "38", "interactions": "1"})
    response = Response.objects.get()
    assert response.value == 38.0 and response.correct is True and response.abs_error == 3.0


@pytest.mark.django_db
def test_the_json_flow_needs_a_reported_interaction_and_stores_the_error(study):
    api = APIClient()
    started = api.post(
        f"/api/v1/participate/studies/{study.slug}/sessions/",
        {"consent": True, "params": {"PROLIFIC_PID": "P1", "STUDY_ID": "S", "SESSION_ID": "X"}},
        format="json",
    )
    assert started.status_code == 201, started.content
    token = started.json()["token"]
    trial = api.get(f"/api/v1/participate/sessions/{token}/trial/").json()
    assert trial["answer_type"] == PROPORTION and trial["options"] == []
    url = f"/api/v1/participate/sessions/{token}/responses/"
    untouched = api.post(url, {"position": 0, "answer": 50}, format="json")
    assert untouched.status_code == 400
    assert "interactions" in untouched.json()["errors"]
    off = api.post(url, {"position": 0, "answer": 140, "interactions": 1}, format="json")
    assert off.status_code == 400 and "slider" in off.json()["detail"]
    taken = api.post(url, {"position": 0, "answer": 50, "interactions": 2}, format="json")
    assert taken.status_code == 201
    response = Response.objects.get()
    assert response.correct is False and response.abs_error == 15.0


@pytest.mark.django_db
def test_the_openapi_schema_lists_the_type():
    schema = APIClient().get("/api/schema/?format=json").content.decode()
    assert f'"{PROPORTION}"' in schema and "the slider's value" in schema


# ------------------------------------------------------------------ results


@pytest.mark.django_db
def test_simulated_answers_give_hmi_and_the_export_carries_the_error(researcher):
    chart_set = make_chart_set(
        researcher, pairs=2, answer_types=[AnswerType.PROPORTION, AnswerType.MULTIPLE_CHOICE]
    )
    study = make_study(researcher, chart_set=chart_set, checks=())
    study_simulate(study=study, participants=8, seed=2, timeout_rate=0)
    answered = Response.objects.filter(chart__question__answer_type=PROPORTION)
    assert answered.exists() and not answered.filter(correct__isnull=True).exists()
    assert not answered.filter(abs_error__isnull=True).exists()
    assert (
        not Response.objects.exclude(chart__question__answer_type=PROPORTION)
        .exclude(abs_error__isnull=True)
        .exists()
    )

    data = results_compute(study, fit_models=False)
    hmi = {c["chart_id"]: c["hmi"] for c in data["charts"]}
    assert hmi["G1_Q1_1"] is not None and 0 <= hmi["G1_Q1_1"] <= 1

    buffer = io.BytesIO()
    export_write(study=study, slug="responses-csv", out=buffer)
    rows = list(csv.DictReader(io.StringIO(buffer.getvalue().decode())))
    errors = {r["abs_error"] for r in rows if r["chart_id"].startswith("G1_Q1")}
    assert errors and "" not in errors
    assert {r["abs_error"] for r in rows if r["chart_id"].startswith("G1_Q2")} == {""}


# ------------------------------------------------------------------ model answers


def test_model_answers_are_scored_like_participants():
    assert check_fact_answer("37", PROPORTION, "35", tolerance=0.05).correct is True
    assert check_fact_answer("about 60", PROPORTION, "35", tolerance=0.05).correct is False
    assert check_fact_answer("", PROPORTION, "35").correct is None


@pytest.mark.django_db
def test_the_model_prompt_asks_for_a_percentage(researcher):
    chart_set = make_chart_set(researcher, pairs=1, answer_types=[AnswerType.PROPORTION])
    chart = Chart.objects.filter(question__chart_set=chart_set).first()
    assert fact_prompt(chart).endswith("Reply with only one number from 0 to 100 (a percentage).")
