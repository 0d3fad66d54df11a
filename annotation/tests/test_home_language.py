"""The annotator's home page speaks the language all their projects share, else the
browser's (Accept-Language); researcher pages stay English."""

import pytest
from django.urls import reverse

from annotation.services import project_join, project_update
from annotation.tests.factories import ProjectFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def signed_in(client, annotator, password):
    client.login(username=annotator.username, password=password)
    return client


def home(client, accept=None):
    headers = {"HTTP_ACCEPT_LANGUAGE": accept} if accept else {}
    return client.get(reverse("annotation:home"), **headers)


@pytest.mark.parametrize(
    ("accept", "lang", "words"),
    [
        (
            "de-DE,de;q=0.9,en;q=0.5",
            "de",
            ["Meine Annotationsarbeit", "Sie sind noch keinem Projekt"],
        ),
        ("es-ES,es;q=0.9", "es", ["Mi trabajo de anotación", "Todavía no se ha unido"]),
        (None, "en", ["My annotation work", "You have not joined a project yet."]),
    ],
)
def test_without_projects_the_home_page_speaks_the_browsers_language(
    signed_in, accept, lang, words
):
    response = home(signed_in, accept)
    body = response.content.decode()
    assert f'<html lang="{lang}' in body and 'dir="ltr"' in body
    assert all(word in body for word in words)
    assert "Accept-Language" in response["Vary"]


def test_projects_sharing_a_language_set_it_and_their_cards_speak_it(
    signed_in, annotator, project, make_items
):
    make_items(project, 2)
    project_update(project=project, language="es")
    project_join(project=project, annotator=annotator)
    body = home(signed_in, "de").content.decode()
    assert '<html lang="es" dir="ltr">' in body
    assert "Mi trabajo de anotación" in body and "Directrices" in body
    assert "Le quedan 2 elementos" in body and "Empezar a etiquetar" in body
    assert "items left for you" not in body and "Guidelines" not in body


def test_projects_in_several_languages_leave_the_browser_to_choose(
    signed_in, annotator, project, researcher, make_items
):
    make_items(project, 1)
    project_update(project=project, language="es")
    project_join(project=project, annotator=annotator)
    project_join(project=ProjectFactory(owner=researcher, title="Other"), annotator=annotator)
    body = home(signed_in, "de").content.decode()
    assert '<html lang="de" dir="ltr">' in body
    assert "Noch 1 Eintrag für Sie" in body and "Richtlinien" in body
    body = home(signed_in).content.decode()
    assert '<html lang="en' in body and "1 item left for you" in body


def test_researcher_pages_stay_english_whatever_the_browser(client, researcher, password):
    client.login(username=researcher.username, password=password)
    body = client.get(reverse("researcher-home"), HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert '<html lang="en' in body and "Meine" not in body
