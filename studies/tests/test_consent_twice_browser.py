"""Enter pressed twice on "I agree" starts one session and lands in it, in Chromium."""

import pytest
from playwright.sync_api import expect

from studies.models import ParticipantSession
from studies.tests.factories import make_study

# PostgreSQL: two requests at once meet on the study row's lock there; the suite's shared
# in-memory SQLite refuses the second at once ("table is locked") instead of waiting.
pytestmark = [pytest.mark.browser, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("javascript", [True, False])
def test_a_double_enter_on_agree_lands_in_the_one_session(
    browser, live_server, researcher, javascript
):
    study = make_study(researcher, pairs=2)
    context = browser.new_context(java_script_enabled=javascript)
    context.set_default_timeout(15_000)
    page = context.new_page()
    for round_ in range(3):  # the race is the browser's: try it more than once
        pid = f"{round_ + (10 if javascript else 20):024x}"
        page.goto(f"{live_server.url}/s/{study.slug}/?PROLIFIC_PID={pid}&STUDY_ID=a&SESSION_ID=b")
        page.get_by_role("button", name="Begin").click()
        page.get_by_role("button", name="I agree and want to take part").focus()
        page.keyboard.press("Enter")
        page.keyboard.press("Enter")
        expect(page.get_by_role("button", name="Start")).to_be_visible()
        session = ParticipantSession.objects.get(study=study, external_id=pid)
        assert page.context.cookies()[0]["value"] == session.token
        page.context.clear_cookies()
    context.close()
