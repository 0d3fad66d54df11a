"""A researcher reads the demo project's report in headless Chromium, on a desktop and a phone."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from annotation.services import assignment_next, assignment_submit
from demo.annotation import load_annotation_demo

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENS = Path(__file__).resolve().parents[2] / "var" / "screens" / "issue8"


@pytest.fixture
def demo(researcher, make_user):
    annotators = [make_user("annotator", username=f"annotator{n}") for n in (1, 2, 3)]
    project = load_annotation_demo(researcher, annotators)
    return project, annotators


def label_some(project, annotator, n: int, seed: int = 1) -> None:
    """The first demo annotator completes items the other two already labelled."""
    rng = random.Random(seed)
    references = dict(project.items.values_list("pk", "reference__labels"))
    for _ in range(n):
        assignment = assignment_next(project=project, annotator=annotator)
        if assignment is None:
            return
        labels = [list(s) for s in references[assignment.item_id]]
        if rng.random() < 0.3:
            labels[0] = [] if labels[0] else ["value_error"]
        assignment_submit(assignment_id=assignment.pk, annotator=annotator, labels=labels)


def sign_in(page, live_server, user, password):
    page.goto(f"{live_server.url}/login/")
    page.get_by_label("Username").fill(user.username)
    page.get_by_label("Password").fill(password)
    page.keyboard.press("Enter")
    page.wait_for_url(lambda url: not url.endswith("/login/"))


def test_the_demo_projects_report_reads_well_and_follows_new_labels(
    browser, page, live_server, demo, researcher, password
):
    SCREENS.mkdir(parents=True, exist_ok=True)
    project, annotators = demo
    label_some(project, annotators[0], 10)
    sign_in(page, live_server, researcher, password)
    report_url = f"{live_server.url}/annotation/projects/{project.slug}/report/"
    page.goto(f"{live_server.url}/annotation/projects/{project.slug}/")
    page.get_by_role("link", name="Report and exports").click()
    page.wait_for_url(report_url)

    expect(page.get_by_role("heading", name="Inter-annotator agreement")).to_be_visible()
    expect(page.locator(".report-status")).to_contain_text("Up to date")
    factual = page.get_by_role("row", name="Factual / not factual")
    expect(factual).to_be_visible()
    kappa = factual.locator("td").first.inner_text()
    assert kappa != "—" and -1 <= float(kappa) <= 1
    figure = page.get_by_role("img", name="Stacked bars")
    expect(figure).to_be_visible()
    assert figure.evaluate("img => img.complete && img.naturalWidth > 0")
    expect(page.get_by_role("table", name=re.compile("CHOCOLATE Tables 2 and 10"))).to_be_visible()
    page.screenshot(path=str(SCREENS / "desktop-report.png"), full_page=True)

    # Keyboard only: switch to the reference labels and show them.
    page.get_by_label("Annotators' labels, aggregated by majority vote").focus()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    focused = page.evaluate("document.activeElement.textContent")
    assert focused.strip() == "Show"
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline != "none"
    page.keyboard.press("Enter")
    page.wait_for_url("**labels=reference**")
    expect(page.locator(".report-status")).to_contain_text("Up to date")
    expect(page.get_by_text("over the imported reference labels")).to_be_visible()
    page.screenshot(path=str(SCREENS / "desktop-reference.png"), full_page=True)

    # More labels arrive: the next view of the annotators' report includes them.
    page.goto(report_url)
    counted = page.locator(".stats li").nth(2).inner_text()
    label_some(project, annotators[0], 3, seed=2)
    page.reload()
    expect(page.locator(".report-status")).to_contain_text("Up to date")
    assert page.locator(".stats li").nth(2).inner_text() != counted

    phone = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2)
    small = phone.new_page()
    sign_in(small, live_server, researcher, password)
    small.goto(report_url)
    expect(small.get_by_role("heading", name="Dataset statistics")).to_be_visible()
    assert small.evaluate("document.documentElement.scrollWidth") <= 390
    small.screenshot(path=str(SCREENS / "phone-report.png"), full_page=True)
    phone.close()
