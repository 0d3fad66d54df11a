"""In headless Chromium: the home card says where each annotator stands in the project."""

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from annotation.models import Qualification
from annotation.services.quality import annotator_decide
from annotation.tests.quality_setup import fail_attempt, qualify_pool, with_pool

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENS = Path(__file__).resolve().parents[2] / "var" / "screens" / "issue14"


def _card(page, live_server, user, password, project):
    page.context.clear_cookies()
    page.goto(f"{live_server.url}/login/")
    page.get_by_label("Username").fill(user.username)
    page.get_by_label("Password").fill(password)
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/annotation/")
    return page.locator(f'[data-project="{project.slug}"]')


def test_the_home_card_shows_each_state(
    page, live_server, project, make_items, members, researcher, password
):
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": 420, "height": 800})
    with_pool(project, make_items, researcher)
    make_items(project, 12)
    new, failed, out, paused, working = members(5)
    fail_attempt(project, failed)
    fail_attempt(project, out)
    annotator_decide(project=project, annotator=out, action="disqualify",
                     reason="Did not follow the guidelines.", actor=researcher)  # fmt: skip
    for person in (paused, working):
        qualify_pool(project, person)
    Qualification.objects.filter(annotator=paused).update(work_state="paused")

    expected = [
        (new, "invited", "Qualification: 2 short rounds, start round 1", "Start round 1"),
        (failed, "failed", re.compile(r"Round 1 failed, next attempt at (\d{4}-\d\d-\d\d )?\d\d:\d\d UTC"),
         "See your result"),
        (out, "eliminated", "Not qualified for this project", "See your results"),
        (paused, "paused", "Paused while the research team reviews your recent labels", None),
        (working, "qualified", "12 items left for you", "Start labelling"),
    ]  # fmt: skip
    for user, state, headline, action in expected:
        card = _card(page, live_server, user, password, project)
        expect(card).to_have_attribute("data-state", state)
        expect(card.locator(".card-state")).to_have_text(headline)
        if action:
            expect(card.get_by_role("link", name=action)).to_be_visible()
        else:
            expect(card.locator(".card-actions a.button:not(.secondary)")).to_have_count(0)
        card.screenshot(path=str(SCREENS / f"card-{state}.png"))
