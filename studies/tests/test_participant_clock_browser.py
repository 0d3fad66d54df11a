"""The trial page's clock counts down in Chromium without asking the server."""

import re

import pytest
from playwright.sync_api import expect

from studies.tests.factories import make_study
from studies.tests.test_participant_browser import answer_trial, current, ready, wait_next
from studies.tests.test_participant_flow_browser import start

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def clock_text(page) -> str:
    return page.locator("[data-time-left]").inner_text().strip(" ·")


def seconds_shown(page) -> int:
    text = clock_text(page)
    found = re.fullmatch(r"(\d+) seconds? left", text)
    assert found, text
    return int(found.group(1))


def test_the_clock_counts_down_between_answers_without_a_request(page, live_server, researcher):
    study = make_study(researcher, time_limit_minutes=1)
    session = start(page, live_server, study, "clock1")
    ready(page)
    requests = []
    # Only what asks the server about the session counts: the page fetches the next chart
    # ahead, and the browser its favicon, while the clock runs.
    page.on("request", lambda r: ("/api/" in r.url or "/s/" in r.url) and requests.append(r.url))
    expect(page.locator("[data-time-left]")).to_have_text(re.compile(r"seconds? left"))
    first = seconds_shown(page)
    assert 0 < first < 60
    page.wait_for_timeout(2200)
    later = seconds_shown(page)
    assert first - 4 <= later <= first - 2
    assert requests == []  # counted in the page
    # After an answer the next trial's figures come with the reply, and it goes on.
    trial = current(session)
    answer_trial(page, trial, ranking_by="keys")
    wait_next(page, trial)
    after = seconds_shown(page)
    # The reply's figure may put it back by up to a second (both sides round up).
    page.wait_for_timeout(2500)
    assert seconds_shown(page) < after


def test_without_javascript_the_server_words_stay(browser, live_server, researcher):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    study = make_study(researcher, time_limit_minutes=10)
    page.goto(f"{live_server.url}/s/{study.slug}/?PROLIFIC_PID=clock2&STUDY_ID=a&SESSION_ID=b")
    page.get_by_role("button", name="Begin").click()
    page.get_by_role("button", name="I agree and want to take part").click()
    page.get_by_role("button", name="Start").click()
    assert clock_text(page) == "10 minutes left"
    page.wait_for_timeout(1200)
    assert clock_text(page) == "10 minutes left"
    context.close()
