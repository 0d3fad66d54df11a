"""Every table download on the agreement report is a link a person can see and a screen
reader can name, the error types of Figure 1 included."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from annotation.tests.test_reports_browser import label_some, sign_in
from demo.annotation import load_annotation_demo

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def demo(researcher, make_user):
    annotators = [make_user("annotator", username=f"annotator{n}") for n in (1, 2, 3)]
    return load_annotation_demo(researcher, annotators), annotators


def test_every_csv_link_on_the_report_is_visible_and_named(
    page,
    live_server,
    demo,
    researcher,
    password,
):
    project, annotators = demo
    label_some(project, annotators[0], 5)
    sign_in(page, live_server, researcher, password)
    page.goto(f"{live_server.url}/annotation/projects/{project.slug}/report/")
    expect(page.locator(".report-status")).to_contain_text("Up to date")

    error_types = page.get_by_role("link", name="Error types per model (CSV)")
    expect(error_types).to_be_visible()
    assert "/report/tables/error-types.csv?" in error_types.get_attribute("href")

    links = page.locator("a[href*='/report/tables/']")
    assert links.count() >= 7
    for n in range(links.count()):
        link = links.nth(n)
        expect(link).to_be_visible()
        assert link.inner_text().strip(), link.get_attribute("href")
