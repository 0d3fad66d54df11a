"""A qualification round's title reads in the project's language on the annotator's pages, like
the project's own title: the researcher gives it per language on the round's edit page."""

import pytest
from django.test import Client

from annotation.models import QualificationRound
from annotation.services import project_update
from annotation.services.quality import attempt_start
from annotation.services.quality.round_edits import round_update
from annotation.tests.quality_setup import with_rounds
from core.models import AuditEntry

pytestmark = pytest.mark.django_db


@pytest.fixture
def two(project, make_items, researcher):
    return with_rounds(project, make_items, researcher, controls=0)


def _client(user, password) -> Client:
    client = Client()
    assert client.login(username=user.username, password=password)
    return client


def test_the_researcher_gives_a_round_title_per_language_even_once_attempted(
    project, two, members, researcher, password
):
    (anna,) = members(1)
    attempt_start(project=project, annotator=anna, position=1)  # settings fixed, titles not
    r1 = two["rounds"][0]
    url = f"/annotation/projects/{project.slug}/quality/rounds/{r1.pk}/edit/"
    client = _client(researcher, password)
    page = client.get(url).content.decode()
    assert 'name="translations"' in page and "Title in other languages" in page

    saved = client.post(
        url, {"title": "Round one", "translations": '{"de": {"title": "Runde eins"}}'}
    )
    assert saved.status_code == 302
    r1.refresh_from_db()
    assert r1.translations == {"de": {"title": "Runde eins"}}
    entry = AuditEntry.objects.get(action="annotation.round_update")
    assert entry.details["after"] == {"translations": {"de": {"title": "Runde eins"}}}

    # A post without the field keeps them; an empty one removes them.
    client.post(url, {"title": "Warm-up"})
    r1.refresh_from_db()
    assert (r1.title, r1.translations) == ("Warm-up", {"de": {"title": "Runde eins"}})
    client.post(url, {"title": "Warm-up", "translations": ""})
    r1.refresh_from_db()
    assert r1.translations == {}


def test_a_bad_translation_is_a_message_not_a_500(project, two, researcher, password):
    r1 = two["rounds"][0]
    url = f"/annotation/projects/{project.slug}/quality/rounds/{r1.pk}/edit/"
    client = _client(researcher, password)
    for bad in ('{"xx": {"title": "?"}}', '{"de": {"rule": "f1"}}', "[1, 2]"):
        response = client.post(url, {"title": "Round one", "translations": bad})
        assert response.status_code == 400, bad
    assert QualificationRound.objects.get(pk=r1.pk).translations == {}


def test_annotators_read_round_titles_in_the_projects_language(project, two, members, password):
    project_update(project=project, language="de")
    r1 = two["rounds"][0]
    round_update(project=project, round_id=r1.pk, actor=None,
                 translations={"de": {"title": "Runde eins"}, "es": {"title": "Ronda uno"}})  # fmt: skip
    (anna,) = members(1)
    client = _client(anna, password)
    overview = client.get(f"/annotation/p/{project.slug}/qualify/").content.decode()
    assert "Runde eins" in overview and "Round one" not in overview
    assert "Round two" in overview  # not translated: its own title

    client.post(f"/annotation/p/{project.slug}/qualify/1/start/")
    item = client.get(f"/annotation/p/{project.slug}/qualify/1/").content.decode()
    assert "Runde eins" in item and "Round one" not in item


def test_the_api_reads_and_changes_a_rounds_title_translations(project, two, researcher_api):
    url = f"/api/v1/projects/{project.slug}/rounds/1/"
    changed = researcher_api.patch(
        url, {"translations": {"es": {"title": "Ronda uno"}}}, format="json"
    )
    assert changed.status_code == 200
    assert changed.json()["translations"] == {"es": {"title": "Ronda uno"}}
    refused = researcher_api.patch(url, {"translations": {"es": {"rule": "x"}}}, format="json")
    assert refused.status_code == 400 and "title can be translated" in refused.json()["detail"]
    assert researcher_api.get(url).json()["translations"] == {"es": {"title": "Ronda uno"}}
