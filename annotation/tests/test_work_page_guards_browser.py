"""The work page never submits an item the annotator could not have looked at, and its
one-shot banners say only what just happened."""

import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from annotation.models import Assignment, LabelSet
from annotation.tests import test_browser_annotation as labelling

demo = labelling.demo  # the demo project and its first annotator (a fixture)
sign_in = labelling.sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENS = Path(__file__).resolve().parents[2] / "var" / "screens" / "work-page"

STATE = "() => JSON.parse(document.getElementById('work-state').textContent).assignment"


def _work(page, live_server, project, annotator, password):
    sign_in(page, live_server, annotator, password)
    page.goto(f"{live_server.url}/annotation/p/{project.slug}/work/")
    expect(page.locator("#submit")).to_be_enabled()  # the new item has settled


def test_a_quick_second_enter_does_not_submit_the_next_item_unseen(
    page, live_server, demo, password
):
    project, annotator = demo
    _work(page, live_server, project, annotator, password)
    first = page.evaluate(STATE)
    page.keyboard.press("v")
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => ({STATE})() !== {first}")
    second = page.evaluate(STATE)
    page.wait_for_timeout(100)  # the next item has just appeared
    page.keyboard.press("Enter")
    page.wait_for_timeout(700)
    # The second item is still on screen, leased and without a label set.
    assert page.evaluate(STATE) == second
    assert Assignment.objects.get(pk=second).state == Assignment.State.LEASED
    assert not LabelSet.objects.filter(assignment_id=second).exists()
    assert LabelSet.objects.get(assignment_id=first).labels[0] == ["value_error"]
    # Once it has settled, Enter submits it as usual.
    expect(page.locator("#submit")).to_be_enabled()
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => ({STATE})() !== {second}")
    assert LabelSet.objects.filter(assignment_id=second).exists()


def test_a_held_enter_submits_one_item_only(page, live_server, demo, password):
    project, annotator = demo
    _work(page, live_server, project, annotator, password)
    first = page.evaluate(STATE)
    page.keyboard.down("Enter")
    page.wait_for_function(f"() => ({STATE})() !== {first}")
    second = page.evaluate(STATE)
    # Auto-repeat, as a held key sends it, long after the next item has settled.
    expect(page.locator("#submit")).to_be_enabled()
    page.evaluate(
        """() => document.activeElement.dispatchEvent(new KeyboardEvent("keydown",
        {key: "Enter", repeat: true, bubbles: true, cancelable: true}))"""
    )
    page.keyboard.up("Enter")
    page.wait_for_timeout(500)
    assert page.evaluate(STATE) == second
    assert not LabelSet.objects.filter(assignment_id=second).exists()


def test_the_skip_banner_goes_away_with_the_next_submit(page, live_server, demo, password):
    project, annotator = demo
    _work(page, live_server, project, annotator, password)
    page.click("#skip-open")
    page.fill("#skip-reason", "The chart does not load")
    page.locator("#skip-form").get_by_role("button", name="Skip item").click()
    page.wait_for_url(re.compile(r"/work/$"))
    expect(page.locator(".messages")).to_have_text("Skipped. Here is your next item.")
    expect(page.locator("#submit")).to_be_enabled()
    lease = page.evaluate(STATE)
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => ({STATE})() !== {lease}")
    expect(page.locator("#save-status")).to_have_text("Submitted. Here is your next item.")
    expect(page.locator(".messages")).to_have_count(0)


def test_skipping_the_last_item_does_not_promise_a_next_one(browser, live_server, demo, password):
    project, annotator = demo
    # Everything but one item is done or taken: the skip leaves nothing for this annotator.
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    sign_in(page, live_server, annotator, password)
    page.goto(f"{live_server.url}/annotation/p/{project.slug}/work/")
    lease = Assignment.objects.get(annotator=annotator, state=Assignment.State.LEASED)
    others = project.items.exclude(pk=lease.item_id)
    for item in others:
        Assignment.objects.get_or_create(
            project=project,
            item=item,
            annotator=annotator,
            defaults={"state": Assignment.State.SKIPPED, "slot": 0, "expires_at": timezone.now()},
        )
    page.fill("#noscript-skip-reason", "The chart does not load")
    page.locator("#noscript-skip").get_by_role("button", name="Skip item").click()
    page.wait_for_url(re.compile(r"/work/$"))
    expect(page.locator("h1")).to_contain_text("Nothing left for you")
    expect(page.locator(".messages")).to_have_text("Skipped.")
    page.reload()
    expect(page.locator(".messages")).to_have_count(0)
    context.close()


def test_an_item_whose_time_ran_out_says_so_plainly_and_can_still_be_submitted(
    page, live_server, demo, password
):
    project, annotator = demo
    page.clock.install()
    _work(page, live_server, project, annotator, password)
    lease = page.evaluate(STATE)
    # Past the item's time on the server and on the page's clock; nobody else took it.
    Assignment.objects.filter(pk=lease).update(expires_at=timezone.now() - timedelta(minutes=1))
    page.clock.fast_forward("31:00")
    lease_line = page.locator("#lease")
    expect(lease_line).to_have_text("Time ran out, but you can still submit this item.")
    expect(lease_line).to_have_attribute(
        "title", "You can submit it unless another annotator has taken it over meanwhile."
    )
    # It fits the header on one line beside the Guidelines button, not wrapped.
    height, line = lease_line.evaluate(
        "el => [el.getBoundingClientRect().height, parseFloat(getComputedStyle(el).lineHeight)"
        " || parseFloat(getComputedStyle(el).fontSize) * 1.6]"
    )
    assert height < 1.5 * line
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.locator(".work-head").screenshot(path=str(SCREENS / "work-head-time-ran-out.png"))
    page.keyboard.press("v")
    expect(page.locator("#submit")).to_be_enabled()
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => ({STATE})() !== {lease}")
    assert LabelSet.objects.get(assignment_id=lease).labels[0] == ["value_error"]
