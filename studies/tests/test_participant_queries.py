"""Each trial page and each submit runs a constant number of SQL queries, whatever the trial."""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from studies.models import AnswerType
from studies.selectors.study import trial_current
from studies.tests.factories import answer_for, make_study
from studies.tests.test_participant_pages import form_for

pytestmark = pytest.mark.django_db

# session+study; current trial with chart, question and check; first-shown stamp
TRIAL_PAGE = 3
# The HTML submit reads the session and trial to build the answer from the form,
# then the service runs: savepoint, locked session, trial+response, insert,
# session update, release.
HTML_SUBMIT = 8
API_TRIAL = 3
# The service's six (the answered trial and the next one come in one query), plus
# the next trial's first-shown stamp; the last answer has no next trial.
API_SUBMIT = 7
API_LAST_SUBMIT = 6


@pytest.fixture
def session(researcher):
    from studies.services.sessions import Identity, session_start

    study = make_study(researcher, pairs=6)
    return session_start(
        study=study, identity=Identity("prolific", "P1", {"PROLIFIC_PID": "P1"})
    ).session


def test_trial_pages_and_html_submits_run_constant_queries(
    client, session, django_assert_num_queries
):
    client.post(reverse("participate:begin", args=[session.token]))
    seen = set()
    url = reverse("participate:session", args=[session.token])
    answer_url = reverse("participate:answer", args=[session.token])
    while session.current_position < session.trial_count:
        trial = trial_current(session)
        kind = (
            trial.attention_check.answer_type if trial.is_attention else trial.question.answer_type
        )
        seen.add((trial.kind, kind))
        with django_assert_num_queries(TRIAL_PAGE):
            assert client.get(url).status_code == 200
        with django_assert_num_queries(HTML_SUBMIT):
            assert client.post(answer_url, form_for(trial)).status_code == 302
        session.refresh_from_db()
    assert {k for _, k in seen} == {
        AnswerType.MULTIPLE_CHOICE,
        AnswerType.FREE_TEXT,
        AnswerType.RANKING,
    }
    assert {k for k, _ in seen} == {"chart", "attention"}


def test_a_reloaded_trial_page_needs_no_more_queries_than_the_first_view(
    client, session, django_assert_max_num_queries
):
    client.post(reverse("participate:begin", args=[session.token]))
    url = reverse("participate:session", args=[session.token])
    client.get(url)
    with django_assert_max_num_queries(TRIAL_PAGE):
        client.get(url)


def test_json_trials_and_submits_run_constant_queries(session, django_assert_num_queries):
    api = APIClient()
    base = f"/api/v1/participate/sessions/{session.token}"
    with django_assert_num_queries(API_TRIAL):
        assert api.get(f"{base}/trial/").status_code == 200
    while session.current_position < session.trial_count:
        trial = trial_current(session)
        last = trial.position == session.trial_count - 1
        body = {
            "position": trial.position,
            "answer": answer_for(trial),
            "idempotency_key": f"k{trial.position}",
            "interactions": 2,
        }
        with django_assert_num_queries(API_LAST_SUBMIT if last else API_SUBMIT):
            response = api.post(f"{base}/responses/", body, format="json")
        assert response.status_code == 201
        assert (response.json()["next_trial"] is None) == last
        session.refresh_from_db()
