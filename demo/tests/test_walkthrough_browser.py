"""A researcher's walkthrough in Chromium: tabs, the token's Copy button, no 404s, the 404 page."""

import pytest
from playwright.sync_api import expect

from annotation.services import project_create
from studies.tests.factories import make_study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _sign_in(page, live_server, user, password):
    page.goto(f"{live_server.url}/login/")
    page.get_by_label("Username").fill(user.username)
    page.get_by_label("Password").fill(password)
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/researcher/")


def _missing(page) -> list[str]:
    """Collects every response with status 404 the page loads (favicon requests included)."""
    missing: list[str] = []
    page.on("response", lambda r: missing.append(r.url) if r.status == 404 else None)
    return missing


def _current_tab(page, nav_label: str) -> str:
    nav = page.get_by_role("navigation", name=nav_label)
    current = nav.locator('a[aria-current="page"]')
    assert current.count() == 1
    return current.inner_text()


def test_study_and_project_pages_share_tabs_with_the_current_page_marked(
    page, live_server, researcher, password, tmp_path
):
    study = make_study(researcher, pairs=2)
    project = project_create(owner=researcher, title="Caption errors")
    missing = _missing(page)
    _sign_in(page, live_server, researcher, password)

    page.goto(f"{live_server.url}/studies/study/{study.slug}/pairs/")
    assert _current_tab(page, "Study pages") == "Pairs"
    page.get_by_role("navigation", name="Study pages").get_by_role(
        "link", name="Attention checks"
    ).click()
    page.wait_for_url(f"**/study/{study.slug}/checks/")
    assert _current_tab(page, "Study pages") == "Attention checks"
    page.screenshot(path=str(tmp_path / "study-tabs.png"))

    page.goto(f"{live_server.url}/annotation/projects/{project.slug}/")
    assert _current_tab(page, "Project pages") == "Progress"
    page.get_by_role("navigation", name="Project pages").get_by_role("link", name="Items").click()
    page.wait_for_url(f"**/projects/{project.slug}/items/")
    assert _current_tab(page, "Project pages") == "Items"
    # The same markup and style for both: one pattern.
    assert page.locator("nav.tabs").count() == 1
    page.screenshot(path=str(tmp_path / "project-tabs.png"))
    assert missing == []  # no favicon (or any other) 404 on the way


def test_the_new_token_has_a_copy_button_that_says_copied(
    browser, live_server, researcher, password
):
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    page = context.new_page()
    _sign_in(page, live_server, researcher, password)
    page.goto(f"{live_server.url}/researcher/tokens/")
    page.get_by_label("Name").fill("notebook")
    page.get_by_role("button", name="Create token").click()
    key = page.locator("#new-key").inner_text()
    page.get_by_role("button", name="Copy").click()
    # The label changes once the clipboard's promise resolves: wait for it rather than race it.
    page.get_by_role("button", name="Copied").wait_for(timeout=10_000)
    assert page.get_by_role("status").filter(has_text="Copied").count() == 1
    assert page.evaluate("navigator.clipboard.readText()") == key
    context.close()


def test_the_favicon_is_served_and_linked(page, live_server):
    missing = _missing(page)
    page.goto(f"{live_server.url}/login/")
    icon = page.locator('link[rel="icon"]').get_attribute("href")
    assert page.request.get(f"{live_server.url}{icon}").status == 200
    root_icon = page.request.get(f"{live_server.url}/favicon.ico")
    assert root_icon.status == 200 and root_icon.headers["content-type"].startswith("image/")
    assert missing == []


def test_a_missing_study_shows_the_projects_404_page_even_with_debug_on(
    page, live_server, researcher, password, settings
):
    settings.DEBUG = True  # as `make demo` runs
    _sign_in(page, live_server, researcher, password)
    response = page.goto(f"{live_server.url}/studies/study/no-such-study/")
    assert response.status == 404
    expect(page.get_by_role("heading", name="We could not find that page")).to_be_visible()
    expect(page.get_by_role("link", name="Chartroom").first).to_be_visible()  # the site's header
    assert "URLconf" not in page.content()  # not Django's debug page
    response = page.goto(f"{live_server.url}/no/such/page/")
    assert response.status == 404
    expect(page.get_by_role("heading", name="We could not find that page")).to_be_visible()
