"""A German or Spanish project reads in its language on the annotator's home page and in its
guidelines: the researcher's translated title and description, the standard guidelines in
the platform's translation, and money written the way the language writes it."""

import pytest
from django.urls import reverse

from annotation.defaults import DEFAULT_GUIDELINES, DEFAULT_GUIDELINES_TRANSLATIONS
from annotation.services import project_join, project_update
from annotation.tests.factories import ProjectFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def signed_in(client, annotator, password):
    client.login(username=annotator.username, password=password)
    return client


def test_the_home_card_shows_the_projects_translated_title_and_description(
    signed_in, annotator, project, make_items
):
    make_items(project, 1)
    project_update(
        project=project,
        language="es",
        translations={
            "es": {"title": "Descripciones de gráficos", "description": "Marque cada error."}
        },
    )
    project_join(project=project, annotator=annotator)
    body = signed_in.get(reverse("annotation:home")).content.decode()
    assert '<h2 lang="es">Descripciones de gráficos</h2>' in body
    assert '<p lang="es">Marque cada error.</p>' in body
    assert project.title not in body


def test_a_project_in_another_language_keeps_its_own_title_on_a_mixed_home_page(
    signed_in, annotator, project, researcher, make_items
):
    project_update(project=project, language="de", translations={"de": {"title": "Bildtexte"}})
    project_join(project=project, annotator=annotator)
    project_join(project=ProjectFactory(owner=researcher, title="Other"), annotator=annotator)
    body = signed_in.get(reverse("annotation:home"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert '<h2 lang="de">Bildtexte</h2>' in body and '<h2 lang="en">Other</h2>' in body


def test_the_home_card_writes_the_pay_rate_as_the_projects_language_does(
    signed_in, annotator, project, make_items
):
    make_items(project, 1)
    project_update(project=project, language="de", target_hourly_rate="15.00")
    project_join(project=project, annotator=annotator)
    body = signed_in.get(reverse("annotation:home")).content.decode()
    assert "Ziel 15,00\u00a0$/Std." in body
    assert "$15.00" not in body


@pytest.mark.parametrize("language", ["de", "es"])
def test_the_standard_guidelines_read_in_the_projects_language(
    signed_in, annotator, project, language
):
    project_update(project=project, language=language)
    project_join(project=project, annotator=annotator)
    body = signed_in.get(reverse("annotation:guidelines", args=[project.slug])).content.decode()
    opening = {"de": "In dieser Aufgabe bewerten Sie", "es": "En esta tarea evaluará"}
    assert opening[language] in body
    assert "In this task, you will evaluate" not in body
    # Display only: the stored guidelines stay the standard English ones.
    project.refresh_from_db()
    assert project.guidelines == DEFAULT_GUIDELINES


def test_standard_guidelines_sent_back_by_a_form_still_count_as_standard(
    signed_in, annotator, project
):
    project_update(
        project=project, language="es", guidelines=DEFAULT_GUIDELINES.replace("\n", "\r\n")
    )
    project_join(project=project, annotator=annotator)
    body = signed_in.get(reverse("annotation:guidelines", args=[project.slug])).content.decode()
    assert "En esta tarea evaluará los errores factuales" in body


def test_edited_guidelines_are_shown_as_written(signed_in, annotator, project):
    project_update(project=project, language="de", guidelines="Bitte jede Zeile prüfen.")
    project_join(project=project, annotator=annotator)
    body = signed_in.get(reverse("annotation:guidelines", args=[project.slug])).content.decode()
    assert "Bitte jede Zeile prüfen." in body and "In dieser Aufgabe" not in body


def test_every_language_has_the_standard_guidelines_with_all_seven_categories():
    from django.conf import settings

    from annotation.defaults import DEFAULT_CATEGORY_TRANSLATIONS

    for code, _name in settings.LANGUAGES:
        if code == "en":
            continue
        text = DEFAULT_GUIDELINES_TRANSLATIONS[code]
        for texts in DEFAULT_CATEGORY_TRANSLATIONS.values():
            assert f"- {texts[code]['name']}:" in text
