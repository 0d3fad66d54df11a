"""Everything a participant's request says comes out in the session's language: the JSON
API's refusals and the answer form's own messages, not only the pages around them."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext
from rest_framework.test import APIClient

from studies.models import AnswerType, ParticipantSession
from studies.selectors.languages import token_language_remember
from studies.selectors.study import trial_current
from studies.tests.test_participant_api import API, submit
from studies.tests.test_participant_api import start as api_start
from studies.tests.test_participant_pages import form_for, start
from studies.tests.test_study_languages import german_study

pytestmark = pytest.mark.django_db

NOT_CURRENT = "That is not the chart you are on. Please continue with the one shown now."


def speak(token: str, language: str) -> None:
    """Give a started session another language. Sessions get theirs when they start and
    keep it, which is why each process remembers it: the memory is set along."""
    ParticipantSession.objects.filter(token=token).update(language=language)
    token_language_remember(token, language)


def in_language(language: str, text: str) -> str:
    with translation.override(language):
        translated = gettext(text)
    assert translated != text  # the catalogue has it, so the test can tell
    return translated


@pytest.mark.parametrize("language", ["de", "es"])
def test_the_json_api_refuses_in_the_session_language(researcher, language):
    study = german_study(researcher)
    client = APIClient()
    token = api_start(client, study).json()["token"]
    speak(token, language)
    response = submit(client, token, 5, "1")
    assert response.status_code == 409
    assert response.json()["detail"] == in_language(language, NOT_CURRENT)


def test_the_json_api_starts_in_the_language_of_the_link(researcher):
    study = german_study(researcher)
    client = APIClient()
    response = client.post(
        f"{API}/studies/{study.slug}/sessions/",
        {"consent": True, "params": {"STUDY_ID": "S1", "lang": "de"}},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["code"] == "link_problem"
    english = client.post(
        f"{API}/studies/{study.slug}/sessions/",
        {"consent": True, "params": {"STUDY_ID": "S1"}},
        format="json",
    )
    assert response.json()["detail"] != english.json()["detail"]


def test_a_ranking_still_to_place_is_refused_in_the_session_language(client, researcher):
    study = german_study(researcher, checks=())
    session = start(client, study)
    speak(session.token, "de")
    client.post(reverse("participate:begin", args=[session.token]))
    while (trial := trial_current(session)).question.answer_type != AnswerType.RANKING:
        client.post(reverse("participate:answer", args=[session.token]), form_for(trial))
        session.refresh_from_db()
    response = client.post(
        reverse("participate:answer", args=[session.token]),
        {"position": trial.position, "rank_0": "1"},
    )
    page = client.get(response["Location"]).content.decode()
    assert "still to place" not in page
    assert "(2 noch einzuordnen)" in page


@pytest.mark.parametrize(
    ("url", "headers", "expected"),
    [
        ("/s/no-such-study/?PROLIFIC_PID=abc&lang=de", {}, "Dieser Link funktioniert nicht"),
        (
            "/s/no-such-study/",
            {"HTTP_ACCEPT_LANGUAGE": "es-ES,es;q=0.9"},
            "Este enlace no funciona",
        ),
        ("/s/p/short/?lang=de", {}, "Dieser Link funktioniert nicht"),
        ("/s/p/short/", {"HTTP_ACCEPT_LANGUAGE": "es"}, "Este enlace no funciona"),
        ("/s/p/short/", {}, "This link does not work"),
    ],
)
def test_a_mistyped_participant_link_answers_in_the_link_or_browser_language(
    client, url, headers, expected
):
    response = client.get(url, **headers)
    assert response.status_code == 404
    assert expected in response.content.decode()
