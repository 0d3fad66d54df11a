"""One request per answer in Chromium: with JavaScript the trial page answers through the
JSON flow and draws the next trial without a page load; without it, the forms post."""

import time

import pytest
from playwright.sync_api import expect

from studies.models import AnswerType, ParticipantSession, Question, Response
from studies.tests.factories import make_chart_set, make_study
from studies.tests.test_participant_browser import KEY, answer_trial, current, ready, wait_next

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

EVERY_TYPE = [
    AnswerType.MULTIPLE_CHOICE,
    AnswerType.FREE_TEXT,
    AnswerType.RANKING,
    AnswerType.PROPORTION,
]


@pytest.fixture
def study(researcher):
    chart_set = make_chart_set(researcher, pairs=4, answer_types=EVERY_TYPE)
    Question.objects.filter(chart_set=chart_set, answer_type=AnswerType.PROPORTION).update(
        tolerance=0.05
    )
    return make_study(researcher, chart_set=chart_set)


def start(page, live_server, study, pid):
    page.goto(f"{live_server.url}/s/{study.slug}/?PROLIFIC_PID={pid}&STUDY_ID=a&SESSION_ID=b")
    page.get_by_role("button", name="Begin").click()
    page.get_by_role("button", name="I agree and want to take part").click()
    page.get_by_role("button", name="Start").click()
    return ParticipantSession.objects.get(external_id=pid)


def answer(page, trial, *, js=True):
    if not trial.is_attention and trial.question.answer_type == AnswerType.PROPORTION:
        if js:
            ready(page)
        page.locator("input[name=proportion]").fill("35")
        page.get_by_role("button", name="Next").click()
        wait_next(page, trial)
    else:
        answer_trial(page, trial, ranking_by="keys", js=js)


def expected_value(trial):
    if trial.is_attention:
        return None
    kind = trial.question.answer_type
    if kind == AnswerType.MULTIPLE_CHOICE:
        return trial.question.options.index("2019")
    return {AnswerType.FREE_TEXT: 1.2e6, AnswerType.RANKING: KEY, AnswerType.PROPORTION: 35.0}[kind]


def test_with_javascript_every_answer_is_one_request_and_no_page_loads(page, live_server, study):
    requests, loads = [], []
    page.on("request", lambda r: requests.append((r.method, r.url)))
    session = start(page, live_server, study, "flow1")
    ready(page)
    page.on("framenavigated", lambda frame: loads.append(frame.url))
    # A page load would lose this.
    page.evaluate("window.sameDocument = true")
    first = current(session)
    drawn, wanted = [], {}
    while (trial := current(session)) is not None:
        if trial.position > first.position:
            drawn.append(trial.question.answer_type if not trial.is_attention else "check")
        wanted[trial.position] = expected_value(trial)
        last = trial.position == session.trial_count - 1
        if last:
            assert page.evaluate("window.sameDocument") is True
            assert loads == []
            # The participant-visible texts come from the page, not from the script.
            expect(
                page.get_by_text(f"Page {session.trial_count} of {session.trial_count}")
            ).to_be_visible()
        answer(page, trial)

    expect(page.get_by_role("heading", name="All done")).to_be_visible()
    assert page.locator("#completion-code").inner_text() == "C0DE42"
    # Every type was drawn by the script at least once (only the first trial was not).
    assert set(drawn) >= set(EVERY_TYPE)

    posts = [url for method, url in requests if method == "POST"]
    answers = [url for url in posts if "/api/v1/participate/sessions/" in url]
    assert len(answers) == session.trial_count
    assert not [url for url in posts if url.endswith("/answer/")]
    charts = [url for method, url in requests if method == "GET" and "/media/" in url]
    assert len(charts) == len(set(charts))  # each chart fetched once: ahead, then shown

    responses = {r.position: r for r in Response.objects.filter(session=session)}
    assert sorted(responses) == list(range(session.trial_count))
    for position, value in wanted.items():
        if value is not None:
            assert responses[position].value == value, position
    assert all(r.interactions >= 1 and r.client_ms is not None for r in responses.values())
    assert all(r.server_ms is not None for r in responses.values())
    assert len({r.idempotency_key for r in responses.values()}) == session.trial_count


def test_a_refused_answer_keeps_the_trial_and_says_why(page, live_server, study):
    session = start(page, live_server, study, "flow2")
    while (trial := current(session)) is not None:
        if not trial.is_attention and trial.question.answer_type == AnswerType.FREE_TEXT:
            break
        answer(page, trial)
    if trial.position > 0:
        assert page.locator("[data-trial-flow]").get_attribute("data-shown-position")
    page.locator("#answer-number").fill("about a lot")
    page.get_by_role("button", name="Next").click()
    assert page.get_by_role("alert").inner_text() == "Please enter a number, like 42 or 3.5."
    assert current(session).position == trial.position
    page.locator("#answer-number").fill("1.2 million")
    page.get_by_role("button", name="Next").click()
    wait_next(page, trial)
    assert Response.objects.get(trial=trial).value == 1.2e6


def test_without_javascript_the_pages_take_every_answer_type(browser, live_server, study):
    context = browser.new_context(
        java_script_enabled=False, viewport={"width": 1000, "height": 900}
    )
    page = context.new_page()
    try:
        session = start(page, live_server, study, "nojs-flow")
        while (trial := current(session)) is not None:
            if not trial.is_attention and trial.question.answer_type == AnswerType.RANKING:
                for rank, text in enumerate(KEY, start=1):
                    page.get_by_label(text, exact=True).select_option(str(rank))
                page.get_by_role("button", name="Next").click()
                wait_next(page, trial)
            else:
                answer(page, trial, js=False)
        assert page.locator("#completion-code").inner_text() == "C0DE42"
        # Copy needs the script: without it the button is not shown at all.
        expect(page.get_by_role("button", name="Copy")).to_be_hidden()
        responses = Response.objects.filter(session=session)
        assert responses.count() == session.trial_count
        # Nothing is known about how the answers were given without the script.
        assert all(r.interactions is None for r in responses)
        values = [r.value for r in responses if r.attention_check_id is None]
        assert KEY in values and 35.0 in values and 1.2e6 in values
    finally:
        context.close()


def test_the_next_chart_is_fetched_after_a_pause_not_with_the_answer(page, live_server, researcher):
    """A class answering together does not fetch its next charts together: the page waits
    0.5-2.5 s after drawing a trial before it fetches the chart after it."""
    study = make_study(researcher, pairs=3, checks=())
    charts = []  # (when, url) of every chart the page asks for
    page.on("request", lambda r: "/media/" in r.url and charts.append((time.monotonic(), r.url)))
    session = start(page, live_server, study, "flow-pause")
    ready(page)
    page.wait_for_timeout(2700)  # the first page's pause is over: the second chart is here
    first = current(session)
    answer(page, first)
    shown = time.monotonic()
    asked = len(charts)
    page.wait_for_timeout(300)
    assert [url for when, url in charts if when >= shown] == []  # nothing with the reply
    page.wait_for_timeout(2500)
    fetched = [url for when, url in charts[asked:]]
    assert len(fetched) == 1  # the third trial's chart, once
    # Shown from what was fetched ahead: no request when the third trial is drawn.
    second = current(session)
    answer(page, second)
    page.wait_for_timeout(200)
    assert [url for _, url in charts].count(fetched[0]) == 1


def test_an_answer_from_a_stale_tab_is_not_taken_and_the_next_trial_says_so(
    page, live_server, study
):
    session = start(page, live_server, study, "flow5")
    trial = current(session)
    other = page.context.new_page()  # the same link opened again in a second tab
    other.goto(page.url)
    answer(other, trial)
    answer(page, trial)  # the first tab, still on that chart: its answer is not taken
    expect(page.get_by_role("alert")).to_contain_text("This chart already has your answer")
    assert Response.objects.filter(session=session).count() == 1
    assert current(session).position == trial.position + 1
    page.reload()  # said once
    expect(page.locator("input[name=position]")).to_have_value(str(trial.position + 1))
    expect(page.get_by_role("alert")).to_be_hidden()


def test_enter_pressed_again_as_the_next_chart_appears_does_not_send_its_empty_answer(
    page, live_server, researcher
):
    chart_set = make_chart_set(researcher, pairs=2, answer_types=[AnswerType.FREE_TEXT])
    study = make_study(researcher, chart_set=chart_set, checks=())
    start(page, live_server, study, "enter1")
    ready(page)
    # The moment a second Enter is taken for the chart before is 0.6 s; 3 s here, so that
    # a slow machine cannot make the second press below come after it.
    page.evaluate("document.querySelector('form[data-trial-form]').dataset.enterGraceMs = 3000")
    error = page.locator("[data-flow-error]")
    page.locator("input[name=number]").fill("1.2 million")
    page.keyboard.press("Enter")
    page.get_by_text("Page 2 of 4").wait_for()
    # The second press of a quick double Enter lands on the next chart's empty box.
    page.keyboard.press("Enter")
    time.sleep(0.5)
    expect(error).to_be_hidden()
    assert Response.objects.count() == 1
    # After that moment Enter on the empty box is the participant's: refused as before.
    time.sleep(3)
    page.keyboard.press("Enter")
    expect(error).to_be_visible()
    expect(error).to_contain_text("number")
    assert Response.objects.count() == 1
