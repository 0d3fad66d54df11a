"""An annotation project's language: the annotator's pages speak it, and the researcher's
category and project texts are shown in it when given, else in the words they were written in."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from annotation.models import Category
from annotation.services import (
    assignment_next,
    category_create,
    category_update,
    project_update,
)
from annotation.tests.quality_setup import with_rounds

pytestmark = pytest.mark.django_db


def test_the_work_page_speaks_the_projects_language(signed_in_member, project, make_items):
    make_items(project, 1)
    project_update(project=project, language="es")
    body = signed_in_member.get(f"/annotation/p/{project.slug}/work/").content.decode()
    assert '<html lang="es" dir="ltr">' in body
    assert "Etiquetar una descripción" in body and "Directrices" in body
    assert 'id="submit" aria-keyshortcuts="Enter">Enviar <kbd>' in body
    # The script's words come from the page, translated.
    assert 'data-saving="Guardando…"' in body
    assert "Submit <kbd>" not in body and "Guidelines" not in body


def test_an_english_project_keeps_english_pages(signed_in_member, project, make_items):
    make_items(project, 1)
    body = signed_in_member.get(f"/annotation/p/{project.slug}/work/").content.decode()
    assert '<html lang="en' in body and "Label a caption" in body


def test_category_texts_show_in_the_projects_language_and_fall_back_to_their_own(
    signed_in_member, project, make_items
):
    make_items(project, 1)
    value = Category.objects.get(project=project, key="value_error")
    category_update(
        category=value,
        translations={"es": {"name": "Valor", "definition": "Un número no coincide."}},
    )
    category_create(
        project=project, key="scale_error", name="Axis scale", shortcut="x",
        definition="The caption misreads the axis scale.",
    )  # fmt: skip
    project_update(project=project, language="es")
    body = signed_in_member.get(f"/annotation/p/{project.slug}/work/").content.decode()
    assert 'data-name="Valor" data-definition="Un número no coincide."' in body
    # No Spanish example was given: the category's own example is shown.
    assert "20.4% in 1990" in body
    # The standard categories come with Spanish names; one without translations keeps its own.
    assert ">Tendencia<kbd>" in body and ">Axis scale<kbd>" in body
    # Display only: the stored category is unchanged.
    value.refresh_from_db()
    assert value.name == "Value"


def test_project_texts_show_in_its_language(signed_in_member, project, make_items):
    make_items(project, 1)
    project_update(
        project=project,
        language="de",
        translations={"de": {"title": "Fehler in Bildunterschriften"}},
    )
    body = signed_in_member.get(f"/annotation/p/{project.slug}/guidelines/").content.decode()
    assert "Richtlinien: Fehler in Bildunterschriften" in body
    assert "Zu meinem Eintrag" in body


def test_qualification_pages_speak_the_projects_language(
    signed_in_member, project, make_items, researcher
):
    with_rounds(project, make_items, researcher)
    project_update(project=project, language="de")
    body = signed_in_member.get(f"/annotation/p/{project.slug}/qualify/").content.decode()
    assert "Qualifikation für" in body and "Runde 1: Round one" in body
    assert "Runde 1 starten" in body


@pytest.mark.parametrize(
    "changes, field",
    [
        ({"language": "xx"}, "language"),
        ({"translations": {"xx": {"title": "?"}}}, "translations"),
        ({"translations": {"de": {"owner": "?"}}}, "translations"),
        ({"translations": ["de"]}, "translations"),
        ({"translations": {"de": {"title": "a\x00b"}}}, "translations"),
    ],
)
def test_unknown_languages_and_fields_are_refused(project, changes, field):
    with pytest.raises(ValidationError) as refused:
        project_update(project=project, **changes)
    assert field in refused.value.message_dict


def test_the_api_reads_and_writes_the_language(client_for, researcher, project):
    api = client_for(researcher)
    url = f"/api/v1/projects/{project.slug}/"
    response = api.patch(url, {"language": "de"}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["language"] == "de"
    refused = api.patch(url, {"language": "klingon"}, format="json")
    assert refused.status_code == 400 and "language" in refused.json()["errors"]


def test_the_annotators_api_refuses_in_the_projects_language(
    members, project, make_items, client_for
):
    (anna,) = members(1)
    make_items(project, 1)
    project_update(project=project, language="es")
    lease = assignment_next(project=project, annotator=anna)
    api = client_for(anna)
    url = reverse("api:annotator-assignment-submit", args=[lease.pk])
    assert api.post(url, {"labels": [["value_error"], []]}, format="json").status_code == 201
    again = api.post(url, {"labels": [[], []]}, format="json")
    assert again.status_code == 409
    assert again.json()["detail"] == "Ya envió este elemento; se conservan sus primeras etiquetas."
