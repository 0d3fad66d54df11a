"""Drafts on the work page: a reload outrunning the last save keeps the mark, and a tab
nobody touched never puts its older labels over a draft another tab saved."""

import time

import pytest
from playwright.sync_api import expect

from annotation.models import Assignment
from annotation.tests import test_browser_annotation as labelling

demo = labelling.demo  # the demo project and its first annotator (a fixture)
sign_in = labelling.sign_in
pressed = labelling.pressed

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

STATE = "() => JSON.parse(document.getElementById('work-state').textContent).assignment"


def _signed_in(browser, live_server, annotator, password):
    """A browser of its own (its tabs share cookies and localStorage), signed in: (context, tab)."""
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    context.set_default_timeout(15_000)
    page = context.new_page()
    sign_in(page, live_server, annotator, password)
    return context, page


def _open_work(page, live_server, project):
    page.goto(f"{live_server.url}/annotation/p/{project.slug}/work/")
    expect(page.locator("#submit")).to_be_enabled()  # the item has settled
    return page.evaluate(STATE)


def _draft_becomes(pk: int, labels, seconds: float = 10.0) -> list:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        draft = Assignment.objects.get(pk=pk).draft
        if draft == labels:
            return draft
        time.sleep(0.1)
    return Assignment.objects.get(pk=pk).draft


def _settled_active_seconds(pk: int) -> float:
    """The assignment's active time once no save has changed it for a second."""
    seen = Assignment.objects.get(pk=pk).active_seconds
    for _ in range(50):
        time.sleep(1.0)
        now = Assignment.objects.get(pk=pk).active_seconds
        if now == seen:
            return now
        seen = now
    return seen


def test_a_page_opened_before_the_last_save_arrived_shows_and_saves_the_mark(
    browser, live_server, demo, password
):
    project, annotator = demo
    context, first = _signed_in(browser, live_server, annotator, password)
    # The first page's saves never reach the server, as when a reload's GET is answered
    # before the save the page sent as it unloaded (it stays open: a closing page's last
    # request is not held back by the route).
    first.route("**/draft/", lambda route: route.abort())
    pk = _open_work(first, live_server, project)
    first.keyboard.press("v")  # sentence 1: value error
    first.wait_for_timeout(600)
    assert Assignment.objects.get(pk=pk).draft is None

    again = context.new_page()
    assert _open_work(again, live_server, project) == pk
    expect(again.locator("#save-status")).to_contain_text("saved")
    assert pressed(again, 0) == ["value_error"]
    sentences = len(Assignment.objects.get(pk=pk).item.sentences)
    assert _draft_becomes(pk, [["value_error"]] + [[]] * (sentences - 1))[0] == ["value_error"]
    # Once the server has them, a later page shows the server's draft alone.
    assert again.evaluate("Object.keys(localStorage).filter(k => k.includes('unsaved'))") == []
    context.close()


def test_a_tab_nobody_touched_keeps_the_draft_another_tab_saved(
    browser, live_server, demo, password
):
    project, annotator = demo
    context, tab_a = _signed_in(browser, live_server, annotator, password)
    pk = _open_work(tab_a, live_server, project)
    tab_b = context.new_page()
    assert _open_work(tab_b, live_server, project) == pk
    tab_b.keyboard.press("v")
    sentences = len(Assignment.objects.get(pk=pk).item.sentences)
    marked = [["value_error"]] + [[]] * (sentences - 1)
    assert _draft_becomes(pk, marked) == marked
    tab_b.close()  # its last save (its labels and time) lands; then only tab A saves
    before = _settled_active_seconds(pk)

    # Tab A, untouched but open for a while, is left: it saves its active time only.
    tab_a.bring_to_front()
    tab_a.mouse.move(300, 300)
    tab_a.wait_for_timeout(2500)
    tab_a.get_by_role("link", name="My work").first.click()
    tab_a.wait_for_url(f"{live_server.url}/annotation/")
    deadline = time.monotonic() + 10
    while Assignment.objects.get(pk=pk).active_seconds <= before and time.monotonic() < deadline:
        time.sleep(0.1)
    assignment = Assignment.objects.get(pk=pk)
    assert assignment.active_seconds > before  # its save arrived ...
    assert assignment.draft == marked  # ... and left tab B's labels alone
    tab_c = context.new_page()
    assert _open_work(tab_c, live_server, project) == pk
    assert pressed(tab_c, 0) == ["value_error"]
    context.close()
