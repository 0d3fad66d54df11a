"""The participant's pages and messages in the platform's languages, and right to left.

The participant's language is chosen elsewhere (the link, the browser, the session); here
the pages are rendered again under an active language, as the views do for a session.
"""

import pytest
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation

from studies import answers
from studies.answers.quantities import parse_number
from studies.selectors.timing import time_left_statement, time_statement
from studies.services.sessions.errors import LinkProblem
from studies.services.sessions.platform import identity_from_params
from studies.tests.factories import make_study
from studies.tests.test_participant_pages import link, session_url, start

pytestmark = pytest.mark.django_db


def rendered_in(language: str, response) -> str:
    """The page of ``response`` rendered again with ``language`` active."""
    # With includes the test client keeps one context per template; the first is the page's.
    context = response.context[0].flatten()
    with translation.override(language):
        return render_to_string(response.templates[0].name, context, request=response.wsgi_request)


@pytest.fixture
def trial_response(client, researcher):
    study = make_study(researcher)
    session = start(client, study)
    client.post(reverse("participate:begin", args=[session.token]))
    response = client.get(session_url(session))
    assert response.templates[0].name == "participate/trial.html"
    return response


def test_the_trial_page_reads_right_to_left_in_a_rtl_language(trial_response):
    # Arabic has no catalogue here: the words fall back to English, the direction does not.
    page = rendered_in("ar", trial_response)
    assert '<html lang="ar" dir="rtl">' in page
    assert ">Next</button>" in page


def test_the_trial_page_reads_left_to_right_in_english(trial_response):
    assert '<html lang="en" dir="ltr">' in trial_response.content.decode()


@pytest.mark.parametrize(
    "language, words",
    [
        ("de", ["Seite 1 von", ">Weiter</button>", "Teilnahme an dieser Studie zurückziehen"]),
        ("es", ["Página 1 de", ">Siguiente</button>", "Retirarse de este estudio"]),
    ],
)
def test_the_trial_page_speaks_german_and_spanish(trial_response, language, words):
    page = rendered_in(language, trial_response)
    assert f'<html lang="{language}" dir="ltr">' in page
    for word in words:
        assert word in page
    assert ">Next</button>" not in page


@pytest.mark.parametrize("language", ["de", "es"])
def test_the_welcome_and_consent_pages_speak_the_language(client, researcher, language):
    study = make_study(researcher)
    welcome = rendered_in(language, client.get(link(study)))
    assert {"de": "Beginnen", "es": "Comenzar"}[language] in welcome
    consent = client.get(reverse("participate:consent", args=[study.slug]) + "?PROLIFIC_PID=x1")
    page = rendered_in(language, consent)
    assert {"de": "Ich stimme zu", "es": "Acepto y deseo participar"}[language] in page


def test_messages_and_errors_are_translated():
    with translation.override("de"):
        assert time_statement(expected=15, limit=60) == (
            "Die Teilnahme dauert in der Regel etwa 15 Minuten; Sie haben bis zu 60 Minuten Zeit."
        )
        assert time_left_statement(seconds_left=52 * 60, limit=60) == (
            "Noch etwa 52 von Ihren 60 Minuten"
        )
        with pytest.raises(answers.AnswerFormatError) as refused:
            parse_number("viel")
        assert refused.value.message == "Bitte geben Sie eine Zahl ein, z. B. 42 oder 3,5."
        with pytest.raises(LinkProblem) as problem:
            identity_from_params("prolific", {})
        assert "Ihre Prolific-ID" in problem.value.message
        assert "öffnen Sie die Studie erneut über Prolific" in problem.value.message
    with translation.override("es"):
        assert time_statement(expected=None, limit=1) == "Dispone de hasta 1 minuto."
        with pytest.raises(answers.AnswerFormatError) as refused:
            parse_number("mucho")
        assert refused.value.message == "Por favor, escriba un número, por ejemplo 42 o 3,5."
    # Outside any language, the English source text.
    with pytest.raises(answers.AnswerFormatError) as refused:
        parse_number("lots")
    assert refused.value.message == "Please enter a number, like 42 or 3.5."
