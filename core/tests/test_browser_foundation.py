"""The foundation as a person meets it, in headless Chromium."""

import pytest
from playwright.sync_api import expect

from annotation.services import project_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_researcher_signs_in_creates_an_api_token_and_signs_out(
    page, live_server, researcher, password, tmp_path
):
    page.goto(f"{live_server.url}/")
    page.get_by_role("link", name="Sign in").first.click()
    page.get_by_label("Username").fill(researcher.username)
    page.get_by_label("Password").fill(password)
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/researcher/")
    expect(page.get_by_text("No studies yet.")).to_be_visible()

    page.get_by_role("link", name="API tokens").click()
    page.get_by_label("Name").fill("notebook")
    page.get_by_role("button", name="Create token").click()
    key = page.locator("#new-key").inner_text()
    assert len(key) > 30
    page.screenshot(path=str(tmp_path / "tokens.png"), full_page=True)

    page.get_by_role("button", name="Sign out").click()
    page.wait_for_url(f"{live_server.url}/login/")


def test_an_annotator_signs_up_through_an_invite_link_on_a_phone(browser, live_server, researcher):
    project = project_create(owner=researcher, title="Caption errors")
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = context.new_page()
    page.goto(f"{live_server.url}/annotation/join/{project.invite_code}/")
    page.get_by_label("Username").fill("phoebe")
    page.get_by_label("Password", exact=True).fill("a-long-pass-phrase")
    page.get_by_label("Password confirmation").fill("a-long-pass-phrase")
    page.get_by_role("button", name="Create account and join").click()
    page.wait_for_url(f"{live_server.url}/annotation/")
    expect(page.get_by_role("heading", name="Caption errors")).to_be_visible()
    # Nothing overflows sideways on a phone.
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    context.close()
