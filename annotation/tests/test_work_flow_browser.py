"""The work page shows the next item from the submit's response: no page load between items."""

import re

import pytest
from playwright.sync_api import expect

from annotation.models import Assignment, LabelSet
from annotation.tests import test_browser_annotation as labelling

demo = labelling.demo  # the demo project and its first annotator (a fixture)
sign_in = labelling.sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

STATE = "() => JSON.parse(document.getElementById('work-state').textContent).assignment"


def test_keyboard_labelling_of_several_items_needs_no_page_load(
    page,
    live_server,
    demo,
    password,
):
    project, annotator = demo
    sign_in(page, live_server, annotator, password)
    page.goto(f"{live_server.url}/annotation/p/{project.slug}/work/")
    loads = []
    page.on("load", lambda _: loads.append(page.url))
    page.evaluate("window.sameDocument = true")
    done_before = LabelSet.objects.filter(annotator=annotator).count()
    expected = {}
    for n in range(3):
        lease = page.evaluate(STATE)
        assert Assignment.objects.get(pk=lease).state == Assignment.State.LEASED
        sentences = page.locator(".sentence").count()
        # Sentence 1: Value; sentence 2 (if any): Trend on the second item, Label otherwise.
        page.keyboard.press("v")
        labels = [["value_error"]] + [[] for _ in range(sentences - 1)]
        if sentences > 1:
            page.keyboard.press("j")
            page.keyboard.press("t" if n == 1 else "l")
            labels[1] = ["trend_error" if n == 1 else "label_error"]
        expected[lease] = labels
        expect(page.locator("#submit")).to_be_enabled()  # the item has settled
        page.keyboard.press("Enter")
        page.wait_for_function(f"() => ({STATE})() !== {lease}")
        # The next item is on screen with nothing pressed, the first sentence focused.
        expect(page.locator('.toggle[aria-pressed="true"]')).to_have_count(0)
        expect(page.locator("#save-status")).to_have_text("Submitted. Here is your next item.")
        assert page.evaluate("document.activeElement.classList.contains('sentence')")
        item_number = done_before + n + 2
        expect(page.locator("#progress")).to_contain_text(f"Item {item_number},")
    assert page.evaluate("window.sameDocument") is True
    assert loads == []
    for lease, labels in expected.items():
        assert LabelSet.objects.get(assignment_id=lease).labels == labels
    current = page.evaluate(STATE)
    assert Assignment.objects.get(pk=current).state == Assignment.State.LEASED
    # The skip form now points at the item on screen.
    action = page.locator("#skip-form").get_attribute("action")
    assert re.search(rf"/work/{current}/skip/$", action)


def test_without_javascript_the_plain_form_submits_and_the_next_item_follows(
    browser,
    live_server,
    demo,
    password,
):
    project, annotator = demo
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    sign_in(page, live_server, annotator, password)
    page.goto(f"{live_server.url}/annotation/p/{project.slug}/work/")
    lease = Assignment.objects.get(annotator=annotator, state=Assignment.State.LEASED)
    form = page.locator("#noscript-submit")
    form.locator("fieldset").nth(0).get_by_label("Value").check()
    form.get_by_role("button", name="Submit").click()
    page.wait_for_url(re.compile(r"/work/$"))
    sentences = len(lease.item.sentences)
    assert LabelSet.objects.get(assignment=lease).labels == [["value_error"]] + [[]] * (
        sentences - 1
    )
    following = Assignment.objects.get(annotator=annotator, state=Assignment.State.LEASED)
    assert following.pk != lease.pk
    expect(page.locator("#noscript-submit")).to_be_visible()
    context.close()
