"""Plan a study, go live with a stopping rule, fill it until it stops, and see "This study is full"."""

from io import StringIO

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from analysis.planning import n_for_half_width
from studies.models import Study
from studies.tests.factories import make_study
from studies.tests.test_study_browser import shot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_plan_go_live_with_a_rule_fill_until_it_stops(page, live_server, researcher, password):
    study = make_study(researcher, pairs=3, checks=(None,), status=Study.Status.DRAFT)
    sign_in(page, live_server, researcher, password)
    page.goto(f"{live_server.url}/studies/study/{study.slug}/")
    page.get_by_role("link", name="Planner").click()
    page.get_by_label("Target half-width of the 95% interval").fill("0.2")
    page.get_by_label("Expected exclusion rate").fill("0.1")
    page.get_by_label("Pay per participant").fill("4")
    page.get_by_role("button", name="Plan").click()
    needed = n_for_half_width(0.2)
    assert page.locator("#plan-included").inner_text() == str(needed)
    assert page.locator("#plan-recruit").inner_text() == str(-(-needed * 10 // 9))
    assert page.locator("figure.plan-curve svg").count() == 1
    shot(page, "planner-desktop")

    page.get_by_role("link", name="Settings & texts").click()
    page.get_by_label("Stopping rule").select_option("precision")
    page.get_by_label("Target half-width").fill("0.2")
    page.get_by_label("Minimum included participants").fill("5")
    page.get_by_role("button", name="Save settings").click()
    page.get_by_role("button", name="Go live").click()
    expect(page.get_by_text("The study is now live.")).to_be_visible()

    out = StringIO()
    call_command("simulate_study", study.slug, "--participants", "120", "--seed", "3", stdout=out)
    assert "Stopping rule met" in out.getvalue() and "took no more" in out.getvalue()
    study.refresh_from_db()
    assert study.stopped_reason == "precision"

    page.reload()
    expect(
        page.get_by_role("heading", name="Recruitment stopped: the study is full")
    ).to_be_visible()
    page.get_by_text("Every chart's interval and what it still needs").click()
    shot(page, "stopped-study-desktop")

    page.goto(f"{live_server.url}/s/{study.slug}/?PROLIFIC_PID=late1&STUDY_ID=s&SESSION_ID=x")
    expect(page.get_by_role("heading", name="This study is full")).to_be_visible()
    shot(page, "study-full-participant")

    answer = page.request.post(
        f"{live_server.url}/api/v1/participate/studies/{study.slug}/sessions/",
        data={"consent": True, "params": {"PROLIFIC_PID": "late2"}},
    )
    assert answer.status == 409 and answer.json()["code"] == "study_full"
