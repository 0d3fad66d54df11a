"""A researcher sets up a study and watches it run, in headless Chromium."""

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from studies.models import Study
from studies.services.sessions import Identity, response_record, session_start
from studies.tests.factories import answer_for, make_chart_set, make_study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Inside the checkout by default; CHARTROOM_SCREENS_DIR points elsewhere (e.g. review notes).
SCREENS = (
    Path(
        os.environ.get("CHARTROOM_SCREENS_DIR")
        or Path(__file__).resolve().parents[2] / "var" / "screens"
    )
    / "issue4"
)


def shot(page, name):
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENS / f"{name}.png"), full_page=True)


def sign_in(page, live_server, user, password):
    page.goto(f"{live_server.url}/login/")
    page.get_by_label("Username").fill(user.username)
    page.get_by_label("Password").fill(password)
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/researcher/")


def test_a_researcher_sets_up_a_study_and_takes_it_live(page, live_server, researcher, password):
    chart_set = make_chart_set(researcher, pairs=4)
    sign_in(page, live_server, researcher, password)
    page.goto(f"{live_server.url}/studies/new/")
    page.get_by_label("Title").fill("Truncated axes")
    page.get_by_role("button", name="Create study").click()
    expect(page.get_by_text("Choose at least one chart pair.")).to_be_visible()
    shot(page, "20-study-new-desktop")

    page.get_by_role("link", name="Pairs", exact=True).click()
    page.get_by_role("button", name="Show its pairs").click()
    for code in ("G1_Q1", "G1_Q2", "G1_Q3"):
        page.get_by_label(code, exact=False).check()
    shot(page, "21-study-pairs-desktop")
    page.get_by_role("button", name="Save pairs", exact=True).first.click()
    expect(page.get_by_text("Pairs saved: the study uses 3 pairs.")).to_be_visible()
    expect(page.get_by_role("heading", name="Chosen pairs (3)")).to_be_visible()

    page.get_by_role("link", name="Attention checks").click()
    page.get_by_label("Instructed response").check()
    page.get_by_label("Prompt").fill("Please select 'Strongly agree' for this item.")
    page.get_by_label("Options").fill("Strongly disagree\nStrongly agree")
    page.get_by_label("Answer key").fill("Strongly agree")
    page.get_by_role("button", name="Add check").click()
    expect(page.get_by_text("Attention check added.")).to_be_visible()
    shot(page, "22-study-checks-desktop")

    page.get_by_role("link", name="Settings & texts").click()
    page.get_by_label("Consent text").fill("You agree to answer questions about charts.")
    page.get_by_label("Instructions text").fill("Answer carefully.")
    page.get_by_label("Completion code").fill("DONE123")
    page.get_by_label("Target participants").fill("50")
    shot(page, "23-study-settings-desktop")
    page.get_by_role("button", name="Save settings").click()

    page.get_by_role("button", name="Go live").click()
    expect(page.get_by_text("The study is now live.")).to_be_visible()
    study = Study.objects.get(title="Truncated axes")
    assert (
        study.status == "live" and study.study_pairs.count() == 3 and study.chart_set == chart_set
    )
    expect(
        page.get_by_text(f"/s/{study.slug}/?PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}")
    ).to_be_visible()


def test_the_monitoring_page_on_desktop_and_phone(browser, live_server, researcher, password):
    study = make_study(researcher, pairs=4, min_seconds_per_trial=0)
    for n in range(6):
        session = session_start(
            study=study,
            identity=Identity("prolific", f"PID{n:03d}", {"PROLIFIC_PID": f"PID{n:03d}"}),
        ).session
        trials = session.trials.select_related("question", "attention_check").order_by("position")
        for trial in trials[: 10 if n < 4 else 3]:
            response_record(
                token=session.token,
                position=trial.position,
                answer=answer_for(trial, correct=not (n == 1 and trial.is_attention)),
            )
    for viewport, name in (
        ({"width": 1280, "height": 900}, "desktop"),
        ({"width": 390, "height": 844}, "phone"),
    ):
        context = browser.new_context(viewport=viewport)
        page = context.new_page()
        try:
            sign_in(page, live_server, researcher, password)
            page.goto(f"{live_server.url}/studies/study/{study.slug}/")
            expect(page.get_by_text("participants failing a check")).to_be_visible()
            page.get_by_text("pairs, largest difference").click()
            shot(page, f"24-study-monitor-{name}")
            assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
            if name == "desktop":
                page.get_by_role("link", name="1", exact=True).click()
                expect(page.get_by_text("Trials in the order shown")).to_be_visible()
                shot(page, "25-participant-answers-desktop")
        finally:
            context.close()
