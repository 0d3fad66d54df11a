"""In headless Chromium: one annotator takes both rounds to qualification, another is eliminated."""

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from annotation.demo import NEW_ANNOTATOR, load_annotation_demo
from annotation.models import Qualification
from annotation.services import project_join
from core.models import User

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENS = Path(__file__).resolve().parents[2] / "var" / "screens" / "issue7"
DEMO_PASSWORD = "chartroom-demo"


@pytest.fixture
def demo(researcher, make_user):
    annotators = [make_user("annotator", username=f"annotator{n}") for n in (1, 2, 3)]
    return load_annotation_demo(researcher, annotators)


def sign_in(page, live_server, username, password):
    page.goto(f"{live_server.url}/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/annotation/")


def answer(page, keys):
    """Label the round's caption with the keyboard, then submit with Enter."""
    expect(page.locator(".sentence").first).to_be_focused()
    for key in keys:
        page.keyboard.press(key)
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/qualify/$"))


def test_one_annotator_qualifies_and_another_is_eliminated(
    page, live_server, demo, make_user, password
):
    SCREENS.mkdir(parents=True, exist_ok=True)
    sign_in(page, live_server, NEW_ANNOTATOR, DEMO_PASSWORD)
    page.get_by_role("link", name="Start labelling").click()
    page.wait_for_url(re.compile(r"/qualify/$"))
    expect(page.get_by_text("Opens once you pass round 1.")).to_be_visible()
    page.screenshot(path=str(SCREENS / "rounds-overview.png"), full_page=True)

    page.get_by_role("button", name="Start round 1").click()
    page.wait_for_url(re.compile(r"/qualify/1/$"))
    expect(page.get_by_role("heading", level=1)).to_contain_text("Qualification round 1")
    page.screenshot(path=str(SCREENS / "round-1-item.png"), full_page=True)
    answer(page, ["j", "j", "v"])  # the third sentence has a value error
    expect(page.locator('[data-round="1"]')).to_contain_text("Passed")

    page.get_by_role("link", name="See the researchers' labels for this round").click()
    expect(page.locator("table")).to_contain_text("Value")
    page.screenshot(path=str(SCREENS / "round-1-review.png"), full_page=True)
    page.get_by_role("link", name="Back to the rounds").click()

    page.get_by_role("button", name="Start round 2").click()
    page.wait_for_url(re.compile(r"/qualify/2/$"))
    answer(page, ["j", "t"])  # the second sentence gets the trend wrong
    expect(page.get_by_text("You are qualified.")).to_be_visible()
    page.screenshot(path=str(SCREENS / "qualified.png"), full_page=True)
    page.get_by_role("link", name="Start labelling").click()
    page.wait_for_url(re.compile(r"/work/$"))
    expect(page.locator("#submit")).to_be_visible()
    page.screenshot(path=str(SCREENS / "real-work.png"), full_page=True)
    assert Qualification.objects.get(annotator__username=NEW_ANNOTATOR).state == "qualified"

    # A second newcomer presses nothing on round 1 and, with one attempt, is eliminated.
    page.context.clear_cookies()
    other = make_user("annotator", username="newcomer2")
    project_join(project=demo, annotator=other)
    sign_in(page, live_server, other.username, password)
    page.goto(f"{live_server.url}/annotation/p/{demo.slug}/qualify/")
    page.get_by_role("button", name="Start round 1").click()
    page.wait_for_url(re.compile(r"/qualify/1/$"))
    answer(page, [])
    expect(page.get_by_text("Thank you for taking the qualification rounds.")).to_be_visible()
    expect(page.locator('[data-round="1"]')).to_contain_text("Not passed")
    page.screenshot(path=str(SCREENS / "eliminated.png"), full_page=True)
    page.goto(f"{live_server.url}/annotation/p/{demo.slug}/work/")
    expect(page.get_by_text("This project has no work for you.")).to_be_visible()
    assert Qualification.objects.get(annotator=other).state == "eliminated"
    assert User.objects.filter(username=NEW_ANNOTATOR).exists()

    # The researcher's quality page shows the funnel.
    page.context.clear_cookies()
    page.set_viewport_size({"width": 1280, "height": 900})
    sign_in_researcher = demo.owner
    page.goto(f"{live_server.url}/login/")
    page.get_by_label("Username").fill(sign_in_researcher.username)
    page.get_by_label("Password").fill(password)
    page.keyboard.press("Enter")
    page.wait_for_url(lambda url: "/login/" not in url)
    page.goto(f"{live_server.url}/annotation/projects/{demo.slug}/quality/")
    expect(page.locator("#funnel")).to_contain_text("Qualified")
    page.screenshot(path=str(SCREENS / "researcher-quality.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{live_server.url}/annotation/projects/{demo.slug}/quality/")
    page.screenshot(path=str(SCREENS / "researcher-quality-phone.png"), full_page=True)
