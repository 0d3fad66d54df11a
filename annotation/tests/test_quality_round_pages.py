"""The quality dashboard's round controls: edit, delete, up and down, for the project's owner only."""

import re

import pytest
from django.test import Client

from annotation.services.quality import attempt_start
from annotation.tests.quality_setup import round_titles, with_three_rounds
from core.models import AuditEntry

pytestmark = pytest.mark.django_db


@pytest.fixture
def three(project, make_items, researcher):
    return with_three_rounds(project, make_items, researcher)


@pytest.fixture
def signed_in(password):
    def make(user):
        client = Client()
        assert client.login(username=user.username, password=password)
        return client

    return make


def _base(project):
    return f"/annotation/projects/{project.slug}/quality"


def _messages(response) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def _button(html: str, label: str) -> str:
    """The opening tag of the button whose aria-label is ``label``."""
    found = re.search(rf'<button[^>]*aria-label="{re.escape(label)}"[^>]*>', html)
    assert found, label
    return found.group(0)


def test_the_dashboard_lists_rounds_with_controls_and_says_why_some_are_off(
    project, three, members, researcher, signed_in
):
    (anna,) = members(1)
    attempt_start(project=project, annotator=anna, position=1)
    html = signed_in(researcher).get(f"{_base(project)}/").content.decode()
    rows = re.findall(
        r'<tr data-round="(\d)">\s*<td class="num" data-label="Round">\d</td>\s*<td><strong>([^<]+)',
        html,
    )
    assert rows == [("1", "Round one"), ("2", "Round two"), ("3", "Round three")]
    delete_first = _button(html, "Delete Round one")
    assert " disabled" in delete_first and "Round 1 cannot be deleted" in delete_first
    assert f'href="{_base(project)}/rounds/{three["rounds"][1].pk}/delete/"' in html
    up_second = _button(html, "Move Round two up")
    assert " disabled" in up_second and "annotators have attempted round 1" in up_second
    assert " disabled" not in _button(html, "Move Round two down")
    assert "already the last round" in _button(html, "Move Round three down")
    assert f'href="{_base(project)}/rounds/{three["rounds"][0].pk}/edit/"' in html
    assert "Only the title can change: 1 annotator attempted this round." in html


def test_the_owner_edits_a_round_on_its_page(project, three, researcher, signed_in):
    client = signed_in(researcher)
    r2, gold_c = three["rounds"][1], three["gold"][2]
    url = f"{_base(project)}/rounds/{r2.pk}/edit/"
    page = client.get(url)
    assert page.status_code == 200 and b'value="Round two"' in page.content
    assert b"disabled" not in page.content
    saved = client.post(
        url,
        {"title": "Trends", "gold_items": [gold_c.pk], "rule": "accuracy", "pass_mark": "0.8"},
        follow=True,
    )
    assert saved.redirect_chain[-1][0] == f"{_base(project)}/"
    assert "Round 2 saved." in _messages(saved)
    r2.refresh_from_db()
    assert (r2.title, r2.rule, r2.pass_mark) == ("Trends", "accuracy", 0.8)
    assert [g.pk for g in r2.gold_items.all()] == [gold_c.pk]
    assert AuditEntry.objects.filter(action="annotation.round_update", actor=researcher).exists()


def test_an_attempted_round_shows_its_settings_fixed_and_keeps_them(
    project, three, members, researcher, signed_in
):
    (anna,) = members(1)
    attempt_start(project=project, annotator=anna, position=1)
    client = signed_in(researcher)
    r1 = three["rounds"][0]
    url = f"{_base(project)}/rounds/{r1.pk}/edit/"
    html = client.get(url).content.decode()
    assert 'id="round-locked"' in html and "so its rule, pass mark and gold items are fixed" in html
    rule = re.search(r'<select name="rule"[^>]*>', html).group(0)
    assert "disabled" in rule and "title=" in rule
    # A crafted post cannot change what the page shows as fixed; the title still changes.
    client.post(url, {"title": "Warm-up", "rule": "accuracy", "pass_mark": "0.1"})
    r1.refresh_from_db()
    assert (r1.title, r1.rule, r1.pass_mark) == ("Warm-up", "f1", 0.6)


def test_a_round_started_while_the_page_was_open_is_refused_with_the_reason(
    project, three, members, researcher, signed_in, monkeypatch
):
    (anna,) = members(1)
    attempt_start(project=project, annotator=anna, position=1)
    # The page saw no attempt (it was loaded just before anna started); the service does.
    monkeypatch.setattr("annotation.views.quality_rounds.attempted_by_round", lambda rounds: {})
    r1, gold = three["rounds"][0], three["gold"][0]
    response = signed_in(researcher).post(
        f"{_base(project)}/rounds/{r1.pk}/edit/",
        {"title": "Round one", "gold_items": [gold.pk], "rule": "accuracy", "pass_mark": "0.6"},
    )
    assert response.status_code == 409
    assert any("so its rule, pass mark and gold items are fixed" in m for m in _messages(response))
    html = response.content.decode()
    assert 'id="round-locked"' in html and "disabled" in re.search(
        r"<select name=\"rule\"[^>]*>", html
    ).group(0)
    r1.refresh_from_db()
    assert r1.rule == "f1"


def test_bad_input_on_the_edit_page_is_a_message_not_a_500(project, three, researcher, signed_in):
    client = signed_in(researcher)
    r1 = three["rounds"][0]
    url = f"{_base(project)}/rounds/{r1.pk}/edit/"
    bad = client.post(url, {"title": "", "gold_items": [], "rule": "f1", "pass_mark": "2"})
    assert bad.status_code == 400
    text = " ".join(_messages(bad))
    assert "title" in text and "pass_mark" in text and "gold_items" in text
    r1.refresh_from_db()
    assert r1.title == "Round one"


def test_the_owner_deletes_a_round_and_later_ones_move_up(project, three, researcher, signed_in):
    client = signed_in(researcher)
    done = client.post(f"{_base(project)}/rounds/{three['rounds'][0].pk}/delete/", follow=True)
    assert "Round 1 (Round one) deleted; later rounds moved up." in _messages(done)
    assert round_titles(project) == ["Round two", "Round three"]
    assert client.get(f"{_base(project)}/rounds/{three['rounds'][0].pk}/delete/").status_code == 404


def test_refusals_are_said_with_the_reason(project, three, members, researcher, signed_in):
    (anna,) = members(1)
    attempt_start(project=project, annotator=anna, position=1)
    client = signed_in(researcher)
    r1, r2, _ = three["rounds"]
    deleted = client.post(f"{_base(project)}/rounds/{r1.pk}/delete/")
    assert deleted.status_code == 409 and "Round 1 cannot be deleted" in deleted.content.decode()
    moved = client.post(f"{_base(project)}/rounds/{r2.pk}/move/", {"direction": "up"}, follow=True)
    assert any("cannot move up" in m for m in _messages(moved))
    sideways = client.post(
        f"{_base(project)}/rounds/{r2.pk}/move/", {"direction": "x"}, follow=True
    )
    assert "The direction is 'up' or 'down'." in _messages(sideways)
    assert round_titles(project) == ["Round one", "Round two", "Round three"]


def test_the_owner_moves_rounds_up_and_down(project, three, researcher, signed_in):
    client = signed_in(researcher)
    r3 = three["rounds"][2]
    moved = client.post(f"{_base(project)}/rounds/{r3.pk}/move/", {"direction": "up"}, follow=True)
    assert "Round three moved from round 3 to round 2." in _messages(moved)
    client.post(f"{_base(project)}/rounds/{r3.pk}/move/", {"direction": "up"})
    assert round_titles(project) == ["Round three", "Round one", "Round two"]
    client.post(f"{_base(project)}/rounds/{r3.pk}/move/", {"direction": "down"})
    assert round_titles(project) == ["Round one", "Round three", "Round two"]


def test_other_researchers_get_404_and_annotators_403(
    project, three, researcher, other_researcher, annotator, signed_in
):
    pk = three["rounds"][1].pk
    for user, status in ((other_researcher, 404), (annotator, 403)):
        client = signed_in(user)
        assert client.get(f"{_base(project)}/rounds/{pk}/edit/").status_code == status
        assert client.post(f"{_base(project)}/rounds/{pk}/edit/", {"title": "x"}).status_code == (
            status
        )
        assert client.post(f"{_base(project)}/rounds/{pk}/delete/").status_code == status
        move = client.post(f"{_base(project)}/rounds/{pk}/move/", {"direction": "up"})
        assert move.status_code == status
    anonymous = Client().post(f"{_base(project)}/rounds/{pk}/delete/")
    assert anonymous.status_code == 302 and "/login/" in anonymous["Location"]
    assert round_titles(project) == ["Round one", "Round two", "Round three"]
    assert (
        not AuditEntry.objects.filter(action__startswith="annotation.round_")
        .exclude(action="annotation.round_create")
        .exists()
    )


def test_a_round_of_another_project_is_404_even_for_its_owner(
    project, three, researcher, signed_in
):
    from annotation.services import project_create

    mine_too = project_create(owner=researcher, title="Second project")
    pk = three["rounds"][0].pk
    client = signed_in(researcher)
    base = f"/annotation/projects/{mine_too.slug}/quality/rounds/{pk}"
    assert client.get(f"{base}/edit/").status_code == 404
    assert client.post(f"{base}/delete/").status_code == 404
    assert round_titles(project) == ["Round one", "Round two", "Round three"]
