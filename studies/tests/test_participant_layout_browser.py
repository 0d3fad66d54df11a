"""The chart, its whole question and Next in one view, measured in Chromium on the demo study.

For every trial of a demo session (multiple choice, number and ranking questions, the
instructed-response and the sanity-chart checks) the test measures the bounding boxes of
the chart, the prompt, every option or the number box, and Next, and fails when one of
them is not entirely inside the viewport at 1280x720, 1366x768, 1440x900 (side by side)
or 390x844 (a phone, for a study that allows phones). A ranking is measured in each of
its states: as it opens (nothing placed), after a refused Next (with its message), and
with every item placed, since each state has its own height.
"""

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from demo.library import load_library_demo
from demo.study import load_study_demo
from studies.models import AnswerType, Devices, ParticipantSession, Platform
from studies.selectors.study import trial_current
from studies.services import sessions as svc
from studies.tests.factories import make_study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENS = (
    Path(
        os.environ.get("CHARTROOM_SCREENS_DIR")
        or Path(__file__).resolve().parents[2] / "var" / "screens"
    )
    / "issue13"
)
DESKTOPS = [(1280, 720), (1366, 768), (1440, 900)]
PHONE = (390, 844)
KINDS = {
    "question-multiple_choice",
    "question-free_text",
    "question-ranking",
    "check-multiple_choice",
    "check-free_text",
}

# Boxes in viewport coordinates, with the page's scroll offsets and sizes.
MEASURE = """() => {
  const box = (name, el) => {
    const b = el.getBoundingClientRect();
    return {name, top: b.top, left: b.left, bottom: b.bottom, right: b.right,
            width: b.width, height: b.height};
  };
  const boxes = [];
  const chart = document.querySelector(".trial .chart:not([hidden]) img");
  if (chart) boxes.push(box("chart", chart));
  boxes.push(box("prompt", document.querySelector("#trial-prompt")));
  document.querySelectorAll(".answer-form [role=alert]:not([hidden])")
    .forEach((el) => boxes.push(box(`message "${el.textContent.trim()}"`, el)));
  document.querySelectorAll(".answer-form .choice, .answer-form .rank-item")
    .forEach((el, i) => boxes.push(box(`option ${i + 1}`, el)));
  const number = document.querySelector("#answer-number");
  if (number) boxes.push(box("number box", number));
  boxes.push(box("Next", document.querySelector(".answer-form button[type=submit]")));
  const form = document.querySelector(".answer-form").getBoundingClientRect();
  return {boxes, form: {left: form.left, top: form.top}, scrollX: window.scrollX,
          scrollY: window.scrollY, width: window.innerWidth, height: window.innerHeight,
          scrollWidth: document.documentElement.scrollWidth,
          chartReady: !chart || (chart.complete && chart.naturalWidth > 0)};
}"""


def shot(page, name):
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENS / f"{name}.png"))


@pytest.fixture
def demo_study(researcher):
    return load_study_demo(researcher, load_library_demo(researcher))


def kind_of(trial) -> str:
    if trial.is_attention:
        return f"check-{trial.attention_check.answer_type}"
    return f"question-{trial.question.answer_type}"


def answer_for(trial):
    answer_type, options, _key, _tol = svc.trial_spec(trial)
    if answer_type == AnswerType.MULTIPLE_CHOICE:
        return 0
    if answer_type == AnswerType.RANKING:
        return list(options)
    return "10"


def out_of_view(measured) -> list[str]:
    width, height = measured["width"], measured["height"]
    problems = []
    for b in measured["boxes"]:
        if b["width"] <= 0 or b["height"] <= 0:
            problems.append(f"{b['name']} is not shown")
        elif b["top"] < 0 or b["left"] < 0 or b["bottom"] > height or b["right"] > width:
            problems.append(
                f"{b['name']} at ({b['left']:.0f}, {b['top']:.0f})-({b['right']:.0f}, "
                f"{b['bottom']:.0f}) is outside {width}x{height}"
            )
    if measured["scrollY"] or measured["scrollX"]:
        problems.append(f"the page opened scrolled by {measured['scrollY']} px")
    if measured["scrollWidth"] > width:
        problems.append(f"the page is {measured['scrollWidth']} px wide")
    return problems


def measure(page):
    measured = page.evaluate(MEASURE)
    if not measured["chartReady"]:
        page.wait_for_function(
            "() => { const i = document.querySelector('.trial .chart:not([hidden]) img');"
            " return i && i.complete && i.naturalWidth > 0; }"
        )
        measured = page.evaluate(MEASURE)
    return measured


def check_view(page, trial, size, *, side_by_side: bool, state: str = "") -> None:
    measured = measure(page)
    label = f"{size[0]}x{size[1]} trial {trial.position + 1} ({kind_of(trial)}{state})"
    answer_type, options, _key, _tol = svc.trial_spec(trial)
    shown = [b for b in measured["boxes"] if b["name"].startswith("option ")]
    if answer_type == AnswerType.FREE_TEXT:
        assert any(b["name"] == "number box" for b in measured["boxes"]), label
    else:  # every option is measured, not just the ones the selectors happen to find
        assert len(shown) == len(options), label
    assert out_of_view(measured) == [], label
    chart = next((b for b in measured["boxes"] if b["name"] == "chart"), None)
    if side_by_side and chart is not None:
        assert chart["right"] <= measured["form"]["left"], f"{label}: not side by side"
        # The chart follows the viewport's height, not its own pixel size.
        assert chart["height"] >= 0.7 * measured["height"], label


def check_sizes(page, trial, sizes, *, side_by_side: bool, state: str, shoot: bool) -> None:
    for width, height in sizes:
        page.set_viewport_size({"width": width, "height": height})
        check_view(page, trial, (width, height), side_by_side=side_by_side, state=state)
        if shoot:
            shot(page, f"{width}x{height}-{kind_of(trial)}{state.replace(', ', '-')}")


def rank_by_hand(page, trial, sizes, *, side_by_side: bool, shoot: bool) -> dict:
    """Refuse an unplaced ranking, place every item, measuring each state; what the form reports."""
    page.wait_for_selector("form[data-trial-form][data-ready]", state="attached")
    page.get_by_role("button", name="Next").click()
    page.locator("[data-ranking-missing]").wait_for()
    check_sizes(page, trial, sizes, side_by_side=side_by_side, state=", refused", shoot=shoot)
    unplaced = page.locator(".ranking .rank-item:not(.is-placed) .rank-add")
    while unplaced.count():
        unplaced.first.click()
    assert page.locator("[data-ranking-missing]").is_hidden()
    check_sizes(page, trial, sizes, side_by_side=side_by_side, state=", placed", shoot=shoot)
    form = page.locator("form[data-trial-form]")
    return {
        "answer": [t.strip() for t in form.locator(".rank-item .rank-text").all_inner_texts()],
        "interactions": int(form.locator("input[name=interactions]").input_value()),
        "first_interaction_ms": int(form.locator("input[name=first_interaction_ms]").input_value()),
    }


def take_and_measure(page, session, sizes, *, side_by_side: bool):
    """Go through every trial of the session, measuring each at every size; the kinds seen.

    Rankings are placed by hand in the page, and their answer is recorded with what the
    page reports (order, interactions, time to the first one) under the JSON flow's rule
    that a ranking must report its interactions.
    """
    seen = set()
    while (trial := trial_current(session)) is not None:
        page.reload()
        page.get_by_text(f"Page {trial.position + 1} of {session.trial_count}").wait_for()
        page.wait_for_function("() => document.fonts.status === 'loaded'")
        kind = kind_of(trial)
        shoot = kind not in seen
        check_sizes(page, trial, sizes, side_by_side=side_by_side, state="", shoot=shoot)
        seen.add(kind)
        given = {"answer": answer_for(trial)}
        if svc.trial_spec(trial)[0] == AnswerType.RANKING:
            given = rank_by_hand(page, trial, sizes, side_by_side=side_by_side, shoot=shoot)
            assert given["interactions"] >= len(given["answer"]), kind
        svc.response_record(
            token=session.token,
            position=trial.position,
            client_ms=5000,
            interaction_required=True,
            **given,
        )
        session.refresh_from_db()
    return seen


def start_session(page, live_server, study, pid):
    param = Platform(study.platform).id_param
    page.goto(f"{live_server.url}/s/{study.slug}/?{param}={pid}&STUDY_ID=s1&SESSION_ID=x1")
    page.get_by_role("button", name="Begin").click()
    page.get_by_role("button", name="I agree and want to take part").click()
    page.get_by_role("button", name="Start").click()
    page.locator("form[data-trial-form]").wait_for()
    return ParticipantSession.objects.get(study=study, external_id=pid)


def test_chart_question_and_next_are_in_view_on_laptop_screens(browser, live_server, demo_study):
    width, height = DESKTOPS[0]
    context = browser.new_context(viewport={"width": width, "height": height})
    context.set_default_timeout(15_000)
    page = context.new_page()
    try:
        session = start_session(page, live_server, demo_study, "laptop-1")
        assert take_and_measure(page, session, DESKTOPS, side_by_side=True) == KINDS
    finally:
        context.close()


def phone_context(browser):
    context = browser.new_context(
        viewport={"width": PHONE[0], "height": PHONE[1]}, is_mobile=True, has_touch=True
    )
    context.set_default_timeout(15_000)
    return context


def test_on_an_allowed_phone_everything_is_in_view_and_the_chart_opens_full_screen(
    browser, live_server, demo_study
):
    demo_study.allowed_devices = Devices.ALL
    demo_study.save(update_fields=["allowed_devices"])
    context = phone_context(browser)
    page = context.new_page()
    try:
        session = start_session(page, live_server, demo_study, "phone-1")
        chart = page.locator(".trial .chart img")
        if chart.count() == 0:  # the instructed-response check has no chart
            svc.response_record(token=session.token, position=0, answer=4, client_ms=5000)
            page.reload()
        # The hint is a line of its own under the chart: over it, it hid tick labels. It
        # shows once the page's script has set the chart up (after a reload, not at once).
        expect(page.get_by_text("Tap to enlarge")).to_be_visible()
        hint = page.get_by_text("Tap to enlarge").bounding_box()
        image = page.locator(".trial .chart img").bounding_box()
        assert hint["y"] >= image["y"] + image["height"], (hint, image)
        page.locator(".trial .chart img").tap()
        dialog = page.locator("dialog.chart-zoom")
        dialog.wait_for()
        full = dialog.bounding_box()
        assert (full["width"], full["height"]) == PHONE
        shot(page, "390x844-chart-full-screen")
        zoomed = dialog.locator("img")
        zoomed.tap()
        natural, shown = zoomed.evaluate("i => [i.naturalWidth, i.getBoundingClientRect().width]")
        # At the image's own pixels (or more) the labels are as large as the chart drew them.
        assert shown >= natural >= 600
        shot(page, "390x844-chart-zoomed")
        zoomed.tap()
        assert zoomed.evaluate("i => i.getBoundingClientRect().width") <= PHONE[0]
        dialog.get_by_role("button", name="Close").tap()
        expect(dialog).to_be_hidden()

        session.refresh_from_db()
        assert take_and_measure(page, session, [PHONE], side_by_side=False) == KINDS
    finally:
        context.close()


def test_a_phone_is_turned_away_before_consent_when_the_study_is_for_computers(
    browser, live_server, researcher
):
    demo_study = make_study(researcher, platform="pid")
    context = phone_context(browser)
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/s/{demo_study.slug}/?pid=phone-2")
        page.get_by_role("heading", name="Please use a computer or a tablet").wait_for()
        assert page.url.endswith(f"/s/{demo_study.slug}/device/")
        assert page.get_by_role("button", name="Begin").count() == 0
        shot(page, "390x844-device-not-allowed")
        assert not ParticipantSession.objects.filter(study=demo_study).exists()
    finally:
        context.close()
