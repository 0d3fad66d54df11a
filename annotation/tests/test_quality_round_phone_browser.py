"""On a phone (390 x 844) the round's confirmation is not hidden under the fixed action bar."""

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from annotation.tests.test_quality_browser import DEMO_PASSWORD, sign_in
from demo.annotation import NEW_ANNOTATOR, load_annotation_demo

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENS = Path(__file__).resolve().parents[2] / "var" / "screens" / "round-phone"

# What the middle of a button shows: the button itself, or whatever lies over it.
ON_TOP = """(id) => {
  const r = document.getElementById(id).getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.bottom - 4);
  return hit && (hit.closest('button') || hit).id;
}"""


@pytest.fixture
def demo(researcher, make_user):
    annotators = [make_user("annotator", username=f"annotator{n}") for n in (1, 2, 3)]
    return load_annotation_demo(researcher, annotators)


@pytest.mark.parametrize("scrolled", [False, True], ids=["from-the-top", "scrolled-down"])
def test_the_confirm_buttons_are_whole_and_tappable_on_a_phone(
    browser, live_server, demo, scrolled
):
    SCREENS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    page = context.new_page()
    sign_in(page, live_server, NEW_ANNOTATOR, DEMO_PASSWORD)
    page.goto(f"{live_server.url}/annotation/p/{demo.slug}/qualify/")
    page.get_by_role("button", name="Start round 1").click()
    page.wait_for_url(re.compile(r"/qualify/1/$"))
    if scrolled:
        page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    page.locator("#submit").tap()
    expect(page.locator("#confirm-box")).to_be_visible()
    page.screenshot(path=str(SCREENS / f"confirm-{'scrolled' if scrolled else 'top'}.png"))

    for button in ("confirm-yes", "confirm-no"):
        box = page.locator(f"#{button}").bounding_box()
        assert box["y"] >= 0 and box["y"] + box["height"] <= 844, button
        assert page.evaluate(ON_TOP, button) == button
    page.locator("#confirm-yes").tap()
    page.wait_for_url(re.compile(r"/qualify/1/result/$"))
    context.close()
