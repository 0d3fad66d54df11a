"""An annotator labels a caption in headless Chromium, with the keyboard only."""

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from annotation.models import Assignment, LabelSet
from demo.annotation import load_annotation_demo

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENS = Path(__file__).resolve().parents[2] / "var" / "screens" / "issue6"


@pytest.fixture
def demo(researcher, make_user):
    annotators = [make_user("annotator", username=f"annotator{n}") for n in (1, 2, 3)]
    project = load_annotation_demo(researcher, annotators)
    return project, annotators[0]


def sign_in(page, live_server, user, password):
    page.goto(f"{live_server.url}/login/")
    page.get_by_label("Username").fill(user.username)
    page.get_by_label("Password").fill(password)
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/annotation/")


def pressed(page, sentence: int) -> list[str]:
    row = page.locator(".sentence").nth(sentence)
    return row.locator('.toggle[aria-pressed="true"]').evaluate_all(
        "buttons => buttons.map(b => b.dataset.key)"
    )


def test_an_annotator_labels_with_the_keyboard_reloads_and_submits(
    page, live_server, demo, password
):
    SCREENS.mkdir(parents=True, exist_ok=True)
    project, annotator = demo
    sign_in(page, live_server, annotator, password)
    page.get_by_role("link", name="Start labelling").click()
    page.wait_for_url(re.compile(r"/work/$"))
    lease = Assignment.objects.get(annotator=annotator, state=Assignment.State.LEASED)
    sentences = len(lease.item.sentences)
    assert sentences >= 2

    # Keyboard only from here: the first sentence has focus.
    assert page.evaluate("document.activeElement.classList.contains('sentence')")
    page.keyboard.press("v")  # Value on sentence 1
    page.keyboard.press("j")
    page.keyboard.press("t")  # Trend and Out-of-context on sentence 2
    page.keyboard.press("o")
    page.keyboard.press("Tab")  # into sentence 2's buttons: the definition shows on focus
    expect(page.locator("#tip")).to_be_visible()
    expect(page.locator("#tip")).to_contain_text("Value error")
    assert pressed(page, 0) == ["value_error"]
    assert pressed(page, 1) == ["trend_error", "ooc_error"]
    expect(page.locator("#save-status")).to_contain_text("Draft saved")
    page.screenshot(path=str(SCREENS / "desktop-labelling.png"), full_page=True)

    page.keyboard.press("Shift+?")
    expect(page.locator("#guidelines-dialog")).to_be_visible()
    page.screenshot(path=str(SCREENS / "desktop-guidelines.png"))
    page.keyboard.press("Escape")
    expect(page.locator("#guidelines-dialog")).to_be_hidden()

    lease.refresh_from_db()
    assert lease.draft[:2] == [["value_error"], ["trend_error", "ooc_error"]]

    # A reload mid-item restores the draft from the server.
    page.reload()
    expect(page.locator("#save-status")).to_have_text("Draft restored")
    assert pressed(page, 0) == ["value_error"]
    assert pressed(page, 1) == ["trend_error", "ooc_error"]

    page.keyboard.press("ArrowDown")
    page.keyboard.press("o")  # untoggle Out-of-context on sentence 2
    page.keyboard.press("ArrowUp")
    page.keyboard.press("g")  # Grammatical on sentence 1
    expect(page.locator(".sentence").nth(0)).to_have_class(re.compile("current"))
    expect(page.locator("#submit")).to_be_enabled()  # the item has settled
    page.keyboard.press("Enter")
    page.wait_for_function(
        "() => !document.getElementById('work') || "
        f"JSON.parse(document.getElementById('work-state').textContent).assignment !== {lease.pk}"
    )

    label_set = LabelSet.objects.get(assignment=lease)
    expected = [["value_error", "grammatical_error"], ["trend_error"]] + [[]] * (sentences - 2)
    assert label_set.labels == expected
    assert label_set.active_seconds > 0
    # The next item came up: a new lease, nothing pressed.
    assert Assignment.objects.get(annotator=annotator, state=Assignment.State.LEASED).pk != lease.pk
    assert page.locator('.toggle[aria-pressed="true"]').count() == 0
    done = Assignment.objects.filter(annotator=annotator, state=Assignment.State.SUBMITTED).count()
    assert done == 7  # six done in the demo data, and this one
    expect(page.locator("#progress").get_by_text(f"Item {done + 1},", exact=False)).to_be_visible()


def test_the_labelling_page_fits_a_phone(browser, live_server, demo, password):
    SCREENS.mkdir(parents=True, exist_ok=True)
    project, annotator = demo
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    page = context.new_page()
    sign_in(page, live_server, annotator, password)
    page.goto(f"{live_server.url}/annotation/p/{project.slug}/work/")
    page.locator(".sentence").nth(0).locator(".toggle").nth(0).tap()
    expect(page.locator("#save-status")).to_contain_text("Draft saved")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    expect(page.locator("#submit")).to_be_in_viewport()  # the action bar stays on screen
    page.screenshot(path=str(SCREENS / "phone-labelling.png"), full_page=True)
    page.screenshot(path=str(SCREENS / "phone-viewport.png"))
    page.goto(f"{live_server.url}/annotation/")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.screenshot(path=str(SCREENS / "phone-home.png"), full_page=True)
    context.close()


def test_researcher_pages_render_for_the_demo_project(
    page, live_server, demo, researcher, password
):
    SCREENS.mkdir(parents=True, exist_ok=True)
    project, _ = demo
    page.goto(f"{live_server.url}/login/")
    page.get_by_label("Username").fill(researcher.username)
    page.get_by_label("Password").fill(password)
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/researcher/")
    for name, path in (
        ("researcher-project", ""),
        ("researcher-items", "items/"),
        ("researcher-settings", "settings/"),
        ("researcher-import", "import/"),
    ):
        page.goto(f"{live_server.url}/annotation/projects/{project.slug}/{path}")
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
        page.screenshot(path=str(SCREENS / f"{name}.png"), full_page=True)
    page.goto(f"{live_server.url}/annotation/projects/{project.slug}/items/")
    page.locator("table a").first.click()
    expect(page.locator("h1")).to_be_visible()
    page.screenshot(path=str(SCREENS / "researcher-item.png"), full_page=True)


HIDE = """() => {
  Object.defineProperty(document, "visibilityState", { configurable: true, get: () => "hidden" });
  document.dispatchEvent(new Event("visibilitychange"));
}"""
SHOW = """() => {
  Object.defineProperty(document, "visibilityState", { configurable: true, get: () => "visible" });
  document.dispatchEvent(new Event("visibilitychange"));
}"""


def test_active_time_stops_while_the_tab_is_hidden_and_the_chart_zooms(
    page, live_server, demo, password
):
    project, annotator = demo
    sign_in(page, live_server, annotator, password)
    page.goto(f"{live_server.url}/annotation/p/{project.slug}/work/")
    page.keyboard.press("+")
    expect(page.locator("#zoom-level")).to_have_text("150%")
    page.keyboard.press("0")
    expect(page.locator("#zoom-level")).to_have_text("100%")

    page.wait_for_timeout(2000)
    page.evaluate(HIDE)  # saves the draft with the active time so far
    page.wait_for_timeout(4000)
    page.evaluate(SHOW)
    page.keyboard.press("v")
    expect(page.locator("#save-status")).to_contain_text("Draft saved")
    lease = Assignment.objects.get(annotator=annotator, state=Assignment.State.LEASED)
    # About 2 s visible before hiding; the 4 s hidden are not counted.
    assert 1.0 <= lease.active_seconds < 3.8, lease.active_seconds
