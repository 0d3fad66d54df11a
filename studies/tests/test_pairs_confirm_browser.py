"""Replacing a study's chosen pairs on the pairs page is confirmed on a step of its own."""

import pytest
from playwright.sync_api import expect

from studies.tests.factories import make_chart_set, make_study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_choosing_another_sets_pairs_asks_before_replacing(page, live_server, researcher, password):
    study = make_study(researcher, status="draft", pairs=2)
    other = make_chart_set(researcher, pairs=3)
    page.goto(f"{live_server.url}/login/")
    page.get_by_label("Username").fill(researcher.username)
    page.get_by_label("Password").fill(password)
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/researcher/")

    pairs_url = f"{live_server.url}/studies/study/{study.slug}/pairs/?set={other.slug}"
    page.goto(pairs_url)
    page.get_by_role("button", name="Use every complete pair").click()
    expect(page.get_by_role("heading", name="Replace 2 chosen pairs?")).to_be_visible()
    page.get_by_role("link", name="Keep the current pairs").click()
    expect(page.get_by_role("heading", name="Chosen pairs (2)")).to_be_visible()
    assert study.study_pairs.count() == 2

    page.get_by_role("button", name="Use every complete pair").click()
    page.get_by_role("button", name="Replace the pairs").click()
    expect(page.get_by_text("Pairs saved: the study uses 3 pairs.")).to_be_visible()
    expect(page.get_by_role("heading", name="Chosen pairs (3)")).to_be_visible()
