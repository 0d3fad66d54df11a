"""A researcher views a study's results in headless Chromium: tables, drill-down, plots, overrides."""

from pathlib import Path

import pytest
from playwright.sync_api import expect

from studies.tests.factories import simulated_study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENS = Path(__file__).resolve().parents[2] / "var" / "screens" / "issue5"


def shot(page, name):
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENS / f"{name}.png"), full_page=True)


def sign_in(page, live_server, user, password):
    page.goto(f"{live_server.url}/login/")
    page.get_by_label("Username").fill(user.username)
    page.get_by_label("Password").fill(password)
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/researcher/")


def test_a_researcher_reads_the_results_dashboard(page, live_server, researcher, password):
    study = simulated_study(researcher, participants=40, pairs=4)
    sign_in(page, live_server, researcher, password)
    page.goto(f"{live_server.url}/studies/study/{study.slug}/results/")
    expect(page.get_by_role("heading", name="HMI per chart")).to_be_visible()
    expect(page.locator(".funnel").get_by_text("took part")).to_be_visible()
    shot(page, "01-results-desktop")

    # Sort by HMI, descending: the first row then has the largest HMI.
    header = page.locator(".hmi-table thead button", has_text="HMI").first
    header.click()
    header.click()
    values = page.locator(".hmi-table tbody.chart-row tr:first-child td.num:nth-of-type(5)")
    numbers = [float(v) for v in values.evaluate_all("els => els.map(e => e.dataset.value)")]
    assert numbers and numbers == sorted(numbers, reverse=True)

    # Drill down into the first chart's answers, by keyboard.
    first = page.locator("button.drill").first
    first.focus()
    page.keyboard.press("Enter")
    assert first.get_attribute("aria-expanded") == "true"
    expect(page.locator("tr.answers:not([hidden]) caption").first).to_be_visible()
    shot(page, "02-results-drilldown")

    # Override one participant's decision with a reason.
    page.locator("#participants summary").click()
    form = page.locator(".override-form").first
    form.locator("select").select_option("exclude")
    form.locator("input[name=reason]").fill("Reported a technical problem")
    form.get_by_role("button", name="Save").click()
    expect(page.get_by_text("Decision saved and logged.")).to_be_visible()
    shot(page, "03-results-override")

    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{live_server.url}/studies/study/{study.slug}/results/")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 392, width
    shot(page, "04-results-phone")
