"""The proportion slider in Chromium: no handle and nothing submitted until the participant touches it."""

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from studies.models import AnswerType, Question, Response
from studies.tests.factories import make_chart_set, make_study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENS = (
    Path(
        os.environ.get("CHARTROOM_SCREENS_DIR")
        or Path(__file__).resolve().parents[2] / "var" / "screens"
    )
    / "proportion"
)


def shot(page, name):
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENS / f"{name}.png"), full_page=True)


def test_the_handle_appears_only_where_the_participant_first_touches(page, live_server, researcher):
    chart_set = make_chart_set(researcher, pairs=2, answer_types=[AnswerType.PROPORTION])
    Question.objects.filter(chart_set=chart_set).update(tolerance=0.05)
    study = make_study(researcher, chart_set=chart_set, checks=())
    page.goto(f"{live_server.url}/s/{study.slug}/?PROLIFIC_PID=slider1&STUDY_ID=a&SESSION_ID=b")
    page.get_by_role("button", name="Begin").click()
    page.get_by_role("button", name="I agree and want to take part").click()
    page.get_by_role("button", name="Start").click()

    slider = page.locator("[data-proportion-slider]")
    slider.wait_for()
    field = page.locator("input[name=proportion]")
    expect(slider).to_be_visible()
    assert "is-unset" in slider.get_attribute("class")
    assert field.input_value() == ""
    shot(page, "01-untouched")

    # Next without touching the slider: refused, nothing stored.
    page.get_by_role("button", name="Next").click()
    page.get_by_text("Please move the slider to your estimate").wait_for()
    assert not Response.objects.exists()
    shot(page, "02-refused")

    # A click at about 40% of the track puts the handle there and fills the field.
    box = slider.bounding_box()
    page.mouse.click(box["x"] + box["width"] * 0.4, box["y"] + box["height"] / 2)
    assert "is-unset" not in slider.get_attribute("class")
    value = float(field.input_value())
    assert 30 <= value <= 50
    assert int(page.locator("input[name=interactions]").input_value()) >= 1
    shot(page, "03-placed")
    page.get_by_role("button", name="Next").click()
    # The next trial is drawn in the same page: wait for it, not for a slider.
    page.get_by_text("Page 2 of 4").wait_for()
    response = Response.objects.get()
    assert response.value == value and response.abs_error == abs(value - 35)
    assert response.correct is (abs(value - 35) <= 5)


def test_a_researcher_previews_a_proportion_question_and_sees_the_tolerance(
    page, live_server, researcher, password
):
    chart_set = make_chart_set(researcher, pairs=1, answer_types=[AnswerType.PROPORTION])
    Question.objects.filter(chart_set=chart_set).update(tolerance=0.05)
    page.goto(f"{live_server.url}/login/")
    page.get_by_label("Username").fill(researcher.username)
    page.get_by_label("Password").fill(password)
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/researcher/")
    page.goto(f"{live_server.url}/studies/library/{chart_set.slug}/charts/G1_Q1_2/preview/")
    slider = page.locator("[data-proportion-slider]")
    slider.wait_for()
    assert "is-unset" in slider.get_attribute("class")
    page.locator("input[name=answer]").fill("31")
    assert "is-unset" not in slider.get_attribute("class")  # typing places the handle too
    page.get_by_role("button", name="Next").click()
    result = page.get_by_role("status")
    result.wait_for()
    assert "Correct." in result.inner_text() and "±5 points" in result.inner_text()
    shot(page, "04-preview-correct")
    page.goto(f"{live_server.url}/studies/library/{chart_set.slug}/pairs/G1_Q1/")
    expect(page.get_by_text("within ±5 points of 35")).to_be_visible()
    shot(page, "05-pair-detail")
