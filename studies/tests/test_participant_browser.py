"""A participant takes a whole study in headless Chromium: platform link to completion code."""

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from studies.models import AnswerType, Devices, ParticipantSession, Response
from studies.selectors.study import trial_current
from studies.tests.factories import make_study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Inside the checkout by default; CHARTROOM_SCREENS_DIR points elsewhere (e.g. review notes).
SCREENS = (
    Path(
        os.environ.get("CHARTROOM_SCREENS_DIR")
        or Path(__file__).resolve().parents[2] / "var" / "screens"
    )
    / "issue4"
)
PID = "60f7a1b2c3d4e5f6a7b8c9d0"
KEY = ["Alpha", "Beta", "Gamma"]
# A ranking is one list: the placed items first, in order, then those still to place.
PLACED = ".ranking .rank-item.is-placed"
UNPLACED = ".ranking .rank-item:not(.is-placed)"


def shot(page, name):
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENS / f"{name}.png"), full_page=True)


def current(session):
    session.refresh_from_db()
    return trial_current(session)


def rank_items(page):
    """The items the participant has placed, in their order."""
    return [t.strip() for t in page.locator(f"{PLACED} .rank-text").all_inner_texts()]


def refused_until_placed(page, trial):
    """Next does nothing while an item is still to place; nothing is stored."""
    page.get_by_role("button", name="Next").click()
    missing = page.locator("[data-ranking-missing]")
    expect(missing).to_be_visible()
    expect(missing).to_contain_text("still to place")
    assert not Response.objects.filter(trial=trial).exists()


def drag_into_order(page, trial):
    assert rank_items(page) == []  # nothing is ranked for the participant
    refused_until_placed(page, trial)
    for text in reversed(KEY[1:]):  # placed in the wrong order, then dragged into the right one
        page.locator(UNPLACED).filter(has_text=text).click()
    # Dropped below the items still to place, a placed item goes last among the placed.
    s, d = page.locator(PLACED).first.bounding_box(), page.locator(UNPLACED).last.bounding_box()
    page.mouse.move(s["x"] + s["width"] / 2, s["y"] + s["height"] / 2)
    page.mouse.down()
    page.mouse.move(d["x"] + d["width"] / 2, d["y"] + d["height"] - 2, steps=12)
    page.mouse.up()
    assert rank_items(page) == [KEY[1], KEY[2]]
    assert [t.strip() for t in page.locator(f"{UNPLACED} .rank-text").all_inner_texts()] == KEY[:1]
    page.locator(UNPLACED).filter(has_text=KEY[0]).click()
    assert rank_items(page) == [KEY[1], KEY[2], KEY[0]]
    page.get_by_role("button", name="Next").scroll_into_view_if_needed()
    for target, text in enumerate(KEY):
        items = page.locator(PLACED)
        source = items.filter(has_text=text)
        destination = items.nth(target)
        if rank_items(page).index(text) == target:
            continue
        s, d = source.bounding_box(), destination.bounding_box()
        page.mouse.move(s["x"] + s["width"] / 2, s["y"] + s["height"] / 2)
        page.mouse.down()
        page.mouse.move(d["x"] + d["width"] / 2, d["y"] + 3, steps=12)
        page.mouse.up()
    assert rank_items(page) == KEY


def keyboard_into_order(page, trial):
    # Enter on each item's Place button, in the order the pool lists them; focus moves on.
    page.locator(f"{UNPLACED} .rank-add").first.focus()
    while page.locator(UNPLACED).count():
        page.keyboard.press("Enter")
    for target, text in enumerate(KEY):
        item = page.locator(PLACED).filter(has_text=text)
        item.focus()
        for _ in range(rank_items(page).index(text) - target):
            page.keyboard.press("Alt+ArrowUp")
    assert rank_items(page) == KEY
    assert "All placed" in page.locator("[data-ranking-status]").inner_text()


def ready(page):
    """Answer as a person would: once the page's script is listening."""
    page.wait_for_selector("form[data-trial-form][data-ready]", state="attached")


def answer_trial(page, trial, *, fail_check=False, ranking_by="drag", js=True):
    if js:
        ready(page)
    if trial.is_attention:
        check = trial.attention_check
        if check.answer_type == AnswerType.MULTIPLE_CHOICE:
            label = "Strongly disagree" if fail_check else "Strongly agree"
            page.get_by_label(label, exact=True).check()
        else:
            page.locator("#answer-number").fill("3" if fail_check else "10")
    else:
        kind = trial.question.answer_type
        if kind == AnswerType.MULTIPLE_CHOICE:
            page.get_by_label("2019", exact=True).check()
        elif kind == AnswerType.FREE_TEXT:
            page.locator("#answer-number").fill("1.2 million")
        elif ranking_by == "drag":
            drag_into_order(page, trial)
        else:
            keyboard_into_order(page, trial)
    page.get_by_role("button", name="Next").click()
    wait_next(page, trial)


def wait_next(page, trial):
    """Until the next trial is shown: drawn by the script, a new page, or the debrief."""
    following = trial.position + 1
    page.wait_for_selector(
        f"[data-shown-position='{following}'], input[name=position][value='{following}'], "
        "#completion-code",
        state="attached",
    )


def test_a_participant_takes_the_study_from_the_platform_link_to_the_completion_code(
    page, live_server, researcher
):
    study = make_study(researcher, pairs=3)
    page.goto(f"{live_server.url}/s/{study.slug}/?PROLIFIC_PID={PID}&STUDY_ID=abc&SESSION_ID=def")
    expect(page.get_by_role("heading", name="Welcome")).to_be_visible()
    assert page.locator("nav[aria-label=Main]").count() == 0  # no researcher navigation
    shot(page, "01-welcome-desktop")
    assert not ParticipantSession.objects.exists()  # opening the link started nothing

    page.get_by_role("button", name="Begin").click()
    expect(page.get_by_role("heading", name="Consent")).to_be_visible()
    shot(page, "02-consent-desktop")
    page.get_by_role("button", name="I agree and want to take part").click()
    expect(page.get_by_role("heading", name="Instructions")).to_be_visible()
    session = ParticipantSession.objects.get(external_id=PID)
    assert session.platform_params == {"PROLIFIC_PID": PID, "STUDY_ID": "abc", "SESSION_ID": "def"}

    shot(page, "03-instructions-desktop")
    page.get_by_role("button", name="Start").click()

    rankings_done = 0
    failed_check = reloaded = typed_text = False
    while (trial := current(session)) is not None:
        number = trial.position + 1
        expect(page.get_by_text(f"Page {number} of 8")).to_be_visible()
        if number == 4 and not reloaded:
            page.reload()  # a reload resumes at the same trial
            reloaded = True
            expect(page.get_by_text("Page 4 of 8")).to_be_visible()
        kind = (
            trial.attention_check.answer_type if trial.is_attention else trial.question.answer_type
        )
        if kind == AnswerType.FREE_TEXT and not trial.is_attention and not typed_text:
            ready(page)
            page.locator("#answer-number").fill("about a lot")
            page.get_by_role("button", name="Next").click()
            assert (
                page.get_by_role("alert").inner_text() == "Please enter a number, like 42 or 3.5."
            )
            shot(page, "05-number-error-desktop")
            # Post/redirect/get: the error page is the trial's own address, so a reload
            # shows the trial again and posts nothing.
            assert page.url.endswith(f"/s/p/{session.token}/")
            page.reload()
            assert page.locator("#answer-error").count() == 0
            typed_text = True
            assert current(session).position == trial.position  # the trial stays open
        if kind == AnswerType.RANKING and rankings_done == 0:
            shot(page, "04-ranking-desktop")
        fail = trial.is_attention and trial.attention_check.answer_type == "multiple_choice"
        answer_trial(
            page, trial, fail_check=fail, ranking_by="drag" if rankings_done == 0 else "keys"
        )
        if kind == AnswerType.RANKING and not trial.is_attention:
            rankings_done += 1
        failed_check = failed_check or fail

    assert reloaded and typed_text and failed_check and rankings_done == 2
    expect(page.get_by_role("heading", name="All done")).to_be_visible()  # the debrief thanks
    assert page.locator("#completion-code").inner_text() == "C0DE42"
    shot(page, "06-completion-desktop")

    session.refresh_from_db()
    assert session.status == "completed" and session.attention_failures == 1
    responses = Response.objects.filter(session=session)
    assert responses.count() == 8
    assert responses.filter(correct=False).count() == 1  # only the failed check
    assert all(r.client_ms is not None and r.server_ms is not None for r in responses)
    # Every answer was given by hand: at least one action, the first one timed.
    assert all(r.interactions >= 1 and r.first_interaction_ms is not None for r in responses)
    rankings = [r for r in responses if isinstance(r.value, list)]
    assert len(rankings) == 2 and all(r.interactions >= 3 for r in rankings)

    # A finished participant opening the link again sees the code again.
    page.goto(f"{live_server.url}/s/{study.slug}/?PROLIFIC_PID={PID}")
    page.get_by_role("link", name="See your status").click()
    assert page.locator("#completion-code").inner_text() == "C0DE42"


def test_pages_fit_a_phone_screen(browser, live_server, researcher):
    study = make_study(researcher, pairs=3, allowed_devices=Devices.ALL)
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/s/{study.slug}/?PROLIFIC_PID=phone1")
        page.get_by_role("button", name="Begin").click()
        shot(page, "11-consent-phone")
        page.get_by_role("button", name="I agree and want to take part").click()
        page.get_by_role("button", name="Start").click()
        session = ParticipantSession.objects.get(external_id="phone1")
        seen = set()
        while (trial := current(session)) is not None:
            kind = (
                trial.attention_check.answer_type
                if trial.is_attention
                else trial.question.answer_type
            )
            label = f"{'check' if trial.is_attention else 'chart'}-{kind}"
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= 390, (label, width)
            if label not in seen:
                seen.add(label)
                shot(page, f"12-{label}-phone")
            answer_trial(page, trial, ranking_by="keys")
        shot(page, "13-completion-phone")
        expect(page.locator("#completion-code")).to_be_visible()
    finally:
        context.close()


def test_the_ranking_works_without_javascript(browser, live_server, researcher):
    study = make_study(researcher, pairs=3, checks=())
    context = browser.new_context(
        java_script_enabled=False, viewport={"width": 1000, "height": 900}
    )
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/s/{study.slug}/?PROLIFIC_PID=nojs")
        page.get_by_role("button", name="Begin").click()
        page.get_by_role("button", name="I agree and want to take part").click()
        page.get_by_role("button", name="Start").click()
        session = ParticipantSession.objects.get(external_id="nojs")
        while (trial := current(session)) is not None:
            if not trial.is_attention and trial.question.answer_type == AnswerType.RANKING:
                shot(page, "07-ranking-without-javascript")
                for rank, text in enumerate(KEY, start=1):
                    page.get_by_label(text, exact=True).select_option(str(rank))
                page.get_by_role("button", name="Next").click()
            else:
                answer_trial(page, trial, js=False)
        assert Response.objects.filter(session=session, correct=True).count() == 6
    finally:
        context.close()


def test_a_second_browser_with_the_same_id_cannot_take_the_session_over(
    browser, live_server, researcher
):
    study = make_study(researcher, pairs=3)
    url = f"{live_server.url}/s/{study.slug}/?PROLIFIC_PID=shared-id-1"
    victim = browser.new_context(viewport={"width": 1280, "height": 800})
    attacker = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        mine = victim.new_page()
        mine.goto(url)
        mine.get_by_role("button", name="Begin").click()
        mine.get_by_role("button", name="I agree and want to take part").click()
        mine.get_by_role("button", name="Start").click()
        session = ParticipantSession.objects.get(external_id="shared-id-1")
        answer_trial(mine, current(session))

        theirs = attacker.new_page()
        theirs.goto(url)
        expect(
            theirs.get_by_role("heading", name="This study cannot be started again")
        ).to_be_visible()
        assert theirs.locator("main a, main form").count() == 0  # nothing to act with
        shot(theirs, "14-same-id-second-browser")
        assert session.token not in theirs.content()

        # The first browser carries on, from the study link too.
        mine.goto(url)
        mine.get_by_role("link", name="Continue").click()
        while (trial := current(session)) is not None:
            answer_trial(mine, trial, ranking_by="keys")
        session.refresh_from_db()
        assert session.status == "completed" and ParticipantSession.objects.count() == 1
    finally:
        victim.close()
        attacker.close()
