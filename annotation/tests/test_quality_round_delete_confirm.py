"""Deleting a qualification round is confirmed on a page of its own (GET shows what goes and what
follows, POST deletes), so it works without JavaScript; a round annotators attempted is refused
there with the reason (409)."""

import re

import pytest
from django.test import Client

from annotation.models import Qualification
from annotation.services.quality import attempt_start
from annotation.services.quality.round_edits import round_update
from annotation.tests.quality_setup import qualify, round_titles, with_three_rounds
from core.models import AuditEntry

pytestmark = pytest.mark.django_db


@pytest.fixture
def three(project, make_items, researcher):
    return with_three_rounds(project, make_items, researcher)


@pytest.fixture
def client(researcher, password):
    client = Client()
    assert client.login(username=researcher.username, password=password)
    return client


def _url(project, round_):
    return f"/annotation/projects/{project.slug}/quality/rounds/{round_.pk}/delete/"


def _consequences(html: str) -> list[str]:
    found = re.search(r'<ul id="delete-consequences">(.*?)</ul>', html, re.S)
    return re.findall(r"<li>(.*?)</li>", found.group(1)) if found else []


def test_the_dashboard_links_to_the_page_and_no_longer_asks_with_a_script(project, three, client):
    html = client.get(f"/annotation/projects/{project.slug}/quality/").content.decode()
    url = _url(project, three["rounds"][1])
    assert f'href="{url}"' in html and f'action="{url}"' not in html
    assert "data-confirm" not in html


def test_the_page_shows_what_goes_and_post_deletes(project, three, client):
    r1, r2, _ = three["rounds"]
    a, b, c = (g.item.external_id for g in three["gold"])
    # Round 2 shares round 1's gold item: that one stays, its own becomes a control item.
    round_update(project=project, round_id=r2.pk, actor=None, gold_items=[three["gold"][0],
                 three["gold"][1]])  # fmt: skip
    page = client.get(_url(project, r2))
    html = page.content.decode()
    assert page.status_code == 200 and round_titles(project) == ["Round one", "Round two",
                                                                 "Round three"]  # fmt: skip
    assert "Delete round 2 (Round two)?" in html and 'id="confirm-delete"' in html
    assert _consequences(html) == [
        "Nobody has attempted it, so no annotator&#x27;s results or progress are lost.",
        "Round 3 moves up one place.",
        f"Its gold item {b} becomes a control item, mixed into qualified annotators&#x27; work.",
        f"Gold item {a} stays in round 1.",
        "It cannot be undone: add the round again to get it back.",
    ]
    assert f'href="/annotation/projects/{project.slug}/quality/"' in html  # cancel

    done = client.post(_url(project, r2), follow=True)
    assert done.redirect_chain[-1][0] == f"/annotation/projects/{project.slug}/quality/"
    assert "Round 2 (Round two) deleted; later rounds moved up." in done.content.decode()
    assert round_titles(project) == ["Round one", "Round three"]


def test_deleting_the_last_round_names_who_it_qualifies(project, three, members, client):
    (anna,) = members(1)
    qualify(project, anna)  # passes rounds 1 and 2, waits for round 3
    r3 = three["rounds"][2]
    html = client.get(_url(project, r3)).content.decode()
    assert (
        "It is the last round: 1 annotator who passed every remaining round is qualified "
        f"({anna.username}), and this goes in the log." in _consequences(html)
    )
    assert not any("move up" in line for line in _consequences(html))
    client.post(_url(project, r3))
    assert Qualification.objects.get(annotator=anna).state == Qualification.State.QUALIFIED


def test_an_attempted_round_is_refused_on_the_page_with_the_reason(project, three, members, client):
    (anna,) = members(1)
    attempt_start(project=project, annotator=anna, position=1)
    r1 = three["rounds"][0]
    page = client.get(_url(project, r1)).content.decode()
    assert "Round 1 cannot be deleted: 1 annotator attempted it" in page
    assert 'id="confirm-delete"' not in page

    refused = client.post(_url(project, r1))
    assert refused.status_code == 409
    assert "Round 1 cannot be deleted: 1 annotator attempted it" in refused.content.decode()
    assert round_titles(project) == ["Round one", "Round two", "Round three"]
    assert not AuditEntry.objects.filter(action="annotation.round_delete").exists()


def test_a_round_attempted_after_the_page_was_loaded_is_refused_by_the_post(
    project, three, members, client
):
    r2 = three["rounds"][1]
    assert 'id="confirm-delete"' in client.get(_url(project, r2)).content.decode()
    (anna,) = members(1)
    qualify(project, anna)  # attempts round 2 meanwhile
    refused = client.post(_url(project, r2))
    assert refused.status_code == 409 and "Round 2 cannot be deleted" in refused.content.decode()
    assert round_titles(project) == ["Round one", "Round two", "Round three"]
