"""The demo study taken in German in Chromium: a Prolific link with lang=de to the completion
code, with a German number ("1,5") stored as 1.5."""

import pytest
from playwright.sync_api import expect

from demo.study import load_study_demo
from demo.study_de import QUESTIONS, TEXTS
from studies.models import AnswerType, ParticipantSession, Response
from studies.selectors.study import trial_current
from studies.tests.factories import (
    ChartFactory,
    ChartGroupFactory,
    ChartSetFactory,
    QuestionFactory,
)
from studies.tests.test_participant_browser import wait_next

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PID = "60f7a1b2c3d4e5f6a7b8c9de"
PROFIT = (
    "The following graph shows the profit of company X in millions. Which year was company X "
    "more profitable? 1. 2018 2. 2022 3. 2018 and 2022 were the same."
)
TONS = (
    "The following graph shows the corporate tax paid by Halvorsen Corp. Its corporate tax in "
    "2018 weighed 1 ton in gold. How many tons in gold does its corporate tax weigh in 2022?"
)


def demo_chart_set(owner):
    """Two of the demo benchmark's pairs (a number and a choice), without rendering them all."""
    chart_set = ChartSetFactory(owner=owner)
    group = ChartGroupFactory(chart_set=chart_set)
    questions = [
        QuestionFactory(chart_set=chart_set, group=group, code="G2_Q1", text=TONS,
                        answer_type=AnswerType.FREE_TEXT, answer_key="1.5", key_value=1.5),
        QuestionFactory(chart_set=chart_set, group=group, code="G12_Q1", text=PROFIT,
                        options=["2018", "2022", "2018 and 2022 were the same."],
                        answer_key="1", key_value=0),
    ]  # fmt: skip
    for question in questions:
        for version in (1, 2):
            ChartFactory(question=question, version=version)
    return chart_set


def current(session):
    session.refresh_from_db()
    return trial_current(session)


def test_the_demo_study_in_german_from_a_prolific_link_to_the_completion_code(
    page, live_server, researcher
):
    study = load_study_demo(researcher, demo_chart_set(researcher))
    page.goto(
        f"{live_server.url}/s/{study.slug}/?PROLIFIC_PID={PID}&STUDY_ID=abc&SESSION_ID=def&lang=de"
    )
    assert page.locator("html").get_attribute("lang") == "de"
    expect(page.get_by_text(TEXTS["title"]).first).to_be_visible()
    page.locator("form button[type=submit]").first.click()  # Begin
    expect(page.get_by_text("Sie sind eingeladen, an einer Studie")).to_be_visible()
    assert page.locator("html").get_attribute("lang") == "de"
    page.get_by_role("button", name="Ich stimme zu und möchte teilnehmen").click()
    expect(page.get_by_text("Die meisten Seiten zeigen ein Diagramm")).to_be_visible()
    session = ParticipantSession.objects.get(external_id=PID)
    assert session.language == "de"
    page.locator("form button[type=submit]").first.click()  # Start
    while (trial := current(session)) is not None:
        page.wait_for_selector("form[data-trial-form][data-ready]", state="attached")
        assert page.locator("html").get_attribute("lang") == "de"
        if trial.is_attention and trial.attention_check.answer_type == AnswerType.FREE_TEXT:
            expect(page.get_by_text("Wie viele Äpfel zeigt der Balken?")).to_be_visible()
            page.locator("#answer-number").fill("10")
        elif trial.is_attention:
            page.get_by_label("Stimme voll zu", exact=True).check()
        elif trial.question.answer_type == AnswerType.FREE_TEXT:
            expect(page.get_by_text(QUESTIONS["G2_Q1"][0])).to_be_visible()
            page.locator("#answer-number").fill("1,5")
        else:
            expect(page.get_by_text(QUESTIONS["G12_Q1"][0])).to_be_visible()
            expect(page.get_by_label("2018 und 2022 waren gleich.", exact=True)).to_be_visible()
            page.get_by_label("2018", exact=True).check()
        page.locator("form[data-trial-form] button[type=submit]").click()
        wait_next(page, trial)
    assert page.locator("#completion-code").inner_text() == "CHARTROOM-DEMO"
    expect(page.get_by_text("Vielen Dank! Einige der Diagramme")).to_be_visible()
    assert page.locator("html").get_attribute("lang") == "de"
    numbers = Response.objects.filter(session=session, trial__question__code="G2_Q1")
    assert [(r.raw_answer, r.value, r.correct) for r in numbers] == [("1,5", 1.5, True)] * 2
    session.refresh_from_db()
    assert session.status == "completed" and session.attention_failures == 0
    assert Response.objects.filter(session=session, correct=True).count() == 6
