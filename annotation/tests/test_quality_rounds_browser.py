"""In headless Chromium: a researcher reorders and deletes qualification rounds on the dashboard."""

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from annotation.services.quality import attempt_start
from annotation.tests.quality_setup import round_titles, with_three_rounds
from core.models import AuditEntry

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENS = Path(__file__).resolve().parents[2] / "var" / "screens" / "issue7"


def _titles(page) -> list[str]:
    return page.locator("#quality-rounds tbody tr td:nth-child(2)").all_inner_texts()


def _sign_in(page, live_server, user, password) -> None:
    page.goto(f"{live_server.url}/login/")
    page.get_by_label("Username").fill(user.username)
    page.get_by_label("Password").fill(password)
    page.keyboard.press("Enter")
    page.wait_for_url(lambda url: "/login/" not in url)


def _delete_round_two_after_a_cancel(page) -> None:
    # Delete opens a page saying what goes; Cancel keeps the round, its button deletes it.
    page.get_by_role("link", name="Delete Round two").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Delete round 3 (Round two)?")
    expect(page.locator("#delete-consequences")).to_contain_text("becomes a control item")
    page.screenshot(path=str(SCREENS / "round-delete-confirm.png"), full_page=True)
    page.get_by_role("link", name="Cancel").click()
    assert _titles(page) == ["Round one", "Round three", "Round two"]

    page.get_by_role("link", name="Delete Round two").click()
    page.get_by_role("button", name="Delete round 3").click()
    expect(page.locator(".message.success")).to_have_text(
        "Round 3 (Round two) deleted; later rounds moved up."
    )
    assert _titles(page) == ["Round one", "Round three"]
    expect(page.get_by_role("button", name="Move Round three down")).to_be_disabled()
    page.screenshot(path=str(SCREENS / "rounds-after-delete.png"), full_page=True)


def _rename_the_locked_round_one(page) -> None:
    # Round 1 can only be renamed: its page shows the settings fixed and says why.
    page.get_by_role("link", name="Edit Round one").click()
    expect(page.locator("#round-locked")).to_contain_text(
        "rule, pass mark and gold items are fixed"
    )
    expect(page.get_by_label("Rule")).to_be_disabled()
    page.screenshot(path=str(SCREENS / "round-edit-locked.png"), full_page=True)
    page.get_by_role("textbox", name="Title:", exact=True).fill("Warm-up")
    page.get_by_role("button", name="Save round").click()
    expect(page.locator(".message.success")).to_have_text("Round 1 saved.")
    assert _titles(page) == ["Warm-up", "Round three"]


def test_the_researcher_reorders_and_deletes_rounds_on_the_dashboard(
    page, live_server, project, make_items, members, researcher, password
):
    SCREENS.mkdir(parents=True, exist_ok=True)
    with_three_rounds(project, make_items, researcher)
    (anna,) = members(1)
    attempt_start(project=project, annotator=anna, position=1)

    _sign_in(page, live_server, researcher, password)
    page.goto(f"{live_server.url}/annotation/projects/{project.slug}/quality/")
    expect(page.locator("#quality-rounds")).to_be_visible()
    assert _titles(page) == ["Round one", "Round two", "Round three"]

    # Round 1 has been attempted: its delete and moves are off, and say why.
    delete_first = page.get_by_role("button", name="Delete Round one")
    expect(delete_first).to_be_disabled()
    expect(delete_first).to_have_attribute("title", re.compile("cannot be deleted: 1 annotator"))
    expect(page.get_by_role("button", name="Move Round two up")).to_have_attribute(
        "title", re.compile("annotators have attempted round 1")
    )

    page.get_by_role("button", name="Move Round three up").click()
    expect(page.locator(".message.success")).to_have_text(
        "Round three moved from round 3 to round 2."
    )
    assert _titles(page) == ["Round one", "Round three", "Round two"]
    page.screenshot(path=str(SCREENS / "rounds-reordered.png"), full_page=True)

    _delete_round_two_after_a_cancel(page)
    _rename_the_locked_round_one(page)

    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    expect(page.get_by_role("button", name="Move Warm-up down")).to_be_disabled()
    page.locator("#quality-rounds").screenshot(path=str(SCREENS / "rounds-phone.png"))

    assert round_titles(project) == ["Warm-up", "Round three"]
    actions = list(
        AuditEntry.objects.filter(action__startswith="annotation.round_")
        .exclude(action="annotation.round_create")
        .order_by("pk")
        .values_list("action", flat=True)
    )
    assert actions == [
        "annotation.round_move",
        "annotation.round_delete",
        "annotation.round_update",
    ]
