"""A participant whose connection drops as they press Next stays on the trial, is told the
answer is not saved yet, and it is stored once when the connection is back."""

import pytest
from playwright.sync_api import expect

from studies.models import AnswerType, Response
from studies.tests.factories import make_study
from studies.tests.test_participant_browser import current, ready, wait_next
from studies.tests.test_participant_flow_browser import start

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_lost_connection_keeps_the_answer_and_sends_it_when_back(page, live_server, researcher):
    study = make_study(researcher, pairs=2, checks=())
    session = start(page, live_server, study, "f" * 24)
    trial = current(session)
    ready(page)
    if trial.question.answer_type == AnswerType.MULTIPLE_CHOICE:
        page.get_by_label("2019", exact=True).check()
    else:
        page.locator("#answer-number").fill("1.2 million")
    page.context.set_offline(True)
    page.get_by_role("button", name="Next").click()
    expect(page.locator("[data-flow-error]")).to_contain_text("your answer is not saved yet")
    expect(page.locator("input[name=position]")).to_have_value(str(trial.position))
    assert not Response.objects.filter(session=session).exists()
    page.context.set_offline(False)
    wait_next(page, trial)
    expect(page.locator("[data-flow-error]")).to_be_hidden()
    assert Response.objects.filter(session=session).count() == 1
