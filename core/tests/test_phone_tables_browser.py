"""On a 390 px phone, researcher pages with wide tables scroll the table, never the page."""

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from annotation.services import project_join
from annotation.tests.factories import ProjectFactory
from core.services.tokens import api_token_create
from studies.tests.factories import make_study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENS = (
    Path(
        os.environ.get("CHARTROOM_SCREENS_DIR")
        or Path(__file__).resolve().parents[2] / "var" / "screens"
    )
    / "phone-tables"
)
PHONE = {"width": 390, "height": 844}


def test_wide_tables_scroll_inside_their_wrapper_on_a_phone(
    browser, live_server, researcher, make_user, password
):
    api_token_create(user=researcher, name="analysis notebook on the lab server")
    study = make_study(researcher, pairs=2)
    project = ProjectFactory(owner=researcher, title="Caption errors")
    for _ in range(2):
        project_join(project=project, annotator=make_user("annotator"))
    pages = {
        "tokens": ("/researcher/tokens/", ("button", "Revoke")),
        # A check is deleted on its own confirmation page: the table has a link to it.
        "checks": (f"/studies/study/{study.slug}/checks/", ("link", "Delete check")),
        "quality": (f"/annotation/projects/{project.slug}/quality/", ("button", "Apply")),
    }
    SCREENS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/login/")
        page.get_by_label("Username").fill(researcher.username)
        page.get_by_label("Password").fill(password)
        page.keyboard.press("Enter")
        page.wait_for_url(f"{live_server.url}/researcher/")
        for name, (path, (role, action)) in pages.items():
            page.goto(f"{live_server.url}{path}")
            # The table is wider than the phone, so this is the case the wrapper is for.
            expect(page.get_by_role(role, name=action).first).to_be_attached()
            page.screenshot(path=str(SCREENS / f"{name}.png"), full_page=True)
            widths = page.evaluate(
                "[document.documentElement.scrollWidth, window.innerWidth,"
                " Math.max(...[...document.querySelectorAll('table')].map(t => t.scrollWidth))]"
            )
            assert widths[2] > widths[1], (name, widths)
            assert widths[0] <= widths[1], (name, widths)
        # The planner's curve (an SVG drawn 550 px wide) scales down to the panel.
        page.goto(f"{live_server.url}/studies/study/{study.slug}/planner/")
        expect(page.locator(".plan-curve svg")).to_be_visible()
        page.screenshot(path=str(SCREENS / "planner.png"), full_page=True)
        widths = page.evaluate(
            "[document.documentElement.scrollWidth, window.innerWidth,"
            " document.querySelector('.plan-curve svg').getBoundingClientRect().right]"
        )
        assert widths[0] <= widths[1] and widths[2] <= widths[1], widths
    finally:
        context.close()
