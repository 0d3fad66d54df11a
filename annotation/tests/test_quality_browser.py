"""In headless Chromium: the annotator's way through the qualification rounds, retries included.

The demo's `annotator-new` fails round 1, reads the result, waits out the cooldown
(the tests move the failed attempt's end back instead of sleeping), retries on the
other caption, passes both rounds and reaches the work page. A second newcomer is
eliminated under a one-attempt limit until the researcher raises it.
"""

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from annotation.models import Category, Qualification, RoundAttempt
from annotation.selectors.attempts import attempt_gold
from annotation.services import project_join
from annotation.services.quality import policy_for
from annotation.tests.quality_setup import wait_out_cooldown
from demo.annotation import NEW_ANNOTATOR, load_annotation_demo

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENS = Path(__file__).resolve().parents[2] / "var" / "screens" / "issue14"
DEMO_PASSWORD = "chartroom-demo"


@pytest.fixture
def demo(researcher, make_user):
    annotators = [make_user("annotator", username=f"annotator{n}") for n in (1, 2, 3)]
    return load_annotation_demo(researcher, annotators)


def sign_in(page, live_server, username, password):
    page.context.clear_cookies()
    page.goto(f"{live_server.url}/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.keyboard.press("Enter")
    page.wait_for_url(lambda url: "/login/" not in url)


def answer_with_keyboard(page, labels, shortcuts, screenshot=None):
    """Label the caption sentence by sentence, then Enter (asks) and Enter again (submits)."""
    expect(page.locator(".sentence").first).to_be_focused()
    for n, keys in enumerate(labels):
        for key in keys:
            page.keyboard.press(shortcuts[key])
        if n < len(labels) - 1:
            page.keyboard.press("j")
    expect(page.locator("#submit")).to_be_enabled()  # the item has settled
    page.keyboard.press("Enter")
    expect(page.locator("#confirm-box")).to_be_visible()
    if screenshot:
        page.screenshot(path=str(SCREENS / screenshot), full_page=True)
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/qualify/\d+/result/$"))


def _open_attempt(username, position):
    return RoundAttempt.objects.get(
        qualification__annotator__username=username,
        round__position=position,
        finished_at__isnull=True,
    )


def test_fail_read_the_result_wait_retry_on_another_caption_pass_and_work(page, live_server, demo):
    SCREENS.mkdir(parents=True, exist_ok=True)
    shortcuts = dict(Category.objects.filter(project=demo).values_list("key", "shortcut"))
    sign_in(page, live_server, NEW_ANNOTATOR, DEMO_PASSWORD)
    card = page.locator(f'[data-project="{demo.slug}"]')
    expect(card).to_contain_text("Qualification: 2 short rounds, start round 1")
    card.get_by_role("link", name="Start round 1").click()
    before = page.locator("#before-round-1")
    expect(before).to_contain_text("You have 2 attempts at this round.")
    expect(before).to_contain_text("try again after 2 minutes")
    page.screenshot(path=str(SCREENS / "01-before-round.png"), full_page=True)
    page.get_by_role("button", name="Start round 1").click()
    page.wait_for_url(re.compile(r"/qualify/1/$"))
    first = _open_attempt(NEW_ANNOTATOR, 1)

    # Nothing marked: Enter asks first; Escape goes back; Enter, Enter submits.
    expect(page.locator("#submit")).to_be_enabled()  # the item has settled
    page.keyboard.press("Enter")
    expect(page.locator("#confirm-box")).to_contain_text("the round is scored at once")
    page.keyboard.press("Escape")
    expect(page.locator("#confirm-box")).to_be_hidden()
    assert _open_attempt(NEW_ANNOTATOR, 1).pk == first.pk  # nothing was submitted
    page.locator(".sentence").first.focus()
    answer_with_keyboard(page, [], shortcuts, screenshot="02-confirm.png")
    expect(page.get_by_role("heading", level=1)).to_have_text("Round 1: not passed")
    expect(page.locator("#score")).to_contain_text("pass mark 0.60")
    expect(page.locator("#score")).to_contain_text("F1 on error labels")
    expect(page.locator("#advice")).to_contain_text("1 attempt left.")
    expect(page.locator("#advice")).to_contain_text("It asks captions you have not seen yet.")
    expect(page.locator(".mark-missed").first).to_be_visible()  # the review is on, safely
    page.screenshot(path=str(SCREENS / "03-result-failed.png"), full_page=True)

    page.goto(f"{live_server.url}/annotation/")
    expect(card).to_contain_text(
        re.compile(r"Round 1 failed, next attempt at (\d{4}-\d\d-\d\d )?\d\d:\d\d UTC")
    )
    page.screenshot(path=str(SCREENS / "04-home-failed.png"), full_page=True)
    page.goto(f"{live_server.url}/annotation/p/{demo.slug}/qualify/")
    expect(page.locator('[data-round="1"]')).to_contain_text("Next attempt at")
    expect(page.get_by_role("button", name="Try round 1 again")).to_have_count(0)

    wait_out_cooldown(RoundAttempt.objects.get(pk=first.pk))
    page.reload()
    expect(page.locator("#before-round-1")).to_contain_text("This is your last attempt")
    page.get_by_role("button", name="Try round 1 again").click()
    page.wait_for_url(re.compile(r"/qualify/1/$"))
    retry = _open_attempt(NEW_ANNOTATOR, 1)
    assert retry.number == 2 and not set(retry.gold_ids) & set(first.gold_ids)
    gold = attempt_gold(retry)[0]
    expect(page.locator("#sentences")).to_contain_text(gold.item.sentences[0])
    answer_with_keyboard(page, gold.labels, shortcuts)
    expect(page.get_by_role("heading", level=1)).to_have_text("Round 1: passed")
    page.screenshot(path=str(SCREENS / "05-result-passed.png"), full_page=True)

    page.get_by_role("link", name="Go to round 2").click()
    page.get_by_role("button", name="Start round 2").click()
    page.wait_for_url(re.compile(r"/qualify/2/$"))
    gold = attempt_gold(_open_attempt(NEW_ANNOTATOR, 2))[0]
    answer_with_keyboard(page, gold.labels, shortcuts)
    expect(page.locator("#advice")).to_contain_text("You are qualified.")
    page.get_by_role("link", name="Start labelling").click()
    page.wait_for_url(re.compile(r"/work/$"))
    expect(page.locator("#progress")).to_contain_text(re.compile(r"Item 1, \d+ more available"))
    page.screenshot(path=str(SCREENS / "06-work.png"), full_page=True)
    assert Qualification.objects.get(annotator__username=NEW_ANNOTATOR).state == "qualified"


def test_an_eliminated_annotator_tries_again_once_the_researcher_raises_the_limit(
    page, live_server, demo, make_user, password
):
    SCREENS.mkdir(parents=True, exist_ok=True)
    policy = policy_for(demo)
    policy.max_attempts = 1
    policy.save()
    newcomer = make_user("annotator", username="newcomer2")
    project_join(project=demo, annotator=newcomer)
    sign_in(page, live_server, newcomer.username, password)
    page.goto(f"{live_server.url}/annotation/p/{demo.slug}/qualify/")
    expect(page.locator("#before-round-1")).to_contain_text(
        "If you do not pass it, this project will have no work for you."
    )
    page.get_by_role("button", name="Start round 1").click()
    page.wait_for_url(re.compile(r"/qualify/1/$"))
    answer_with_keyboard(page, [], {})
    expect(page.locator("#advice")).to_contain_text("no attempt is left")
    expect(page.locator("#advice")).not_to_contain_text("guidelines")
    page.goto(f"{live_server.url}/annotation/")
    expect(page.locator(f'[data-project="{demo.slug}"]')).to_contain_text(
        "Not qualified for this project"
    )
    page.goto(f"{live_server.url}/annotation/p/{demo.slug}/qualify/")
    expect(page.locator('[data-round="2"]')).to_contain_text("Closed.")
    expect(page.locator("#qualification")).not_to_contain_text("Opens once you pass")
    page.screenshot(path=str(SCREENS / "07-eliminated.png"), full_page=True)
    assert Qualification.objects.get(annotator=newcomer).state == "eliminated"

    sign_in(page, live_server, demo.owner.username, password)
    page.goto(f"{live_server.url}/annotation/projects/{demo.slug}/quality/")
    page.get_by_label("Max attempts").fill("2")
    page.get_by_role("button", name="Save settings").click()
    expect(page.locator(".messages")).to_contain_text(
        "Rounds re-opened under the new attempt limit for: newcomer2."
    )
    row = page.locator("#quality-annotators tr", has_text="newcomer2")
    expect(row).to_contain_text("Failed a round, may try again")
    page.screenshot(path=str(SCREENS / "08-researcher-raised-limit.png"), full_page=True)

    wait_out_cooldown(RoundAttempt.objects.get(qualification__annotator=newcomer))
    sign_in(page, live_server, newcomer.username, password)
    expect(page.locator(f'[data-project="{demo.slug}"]')).to_contain_text(
        "Round 1 failed, you can try again now"
    )
    page.get_by_role("link", name="Try round 1 again").click()
    page.get_by_role("button", name="Try round 1 again").click()
    page.wait_for_url(re.compile(r"/qualify/1/$"))
    assert _open_attempt(newcomer.username, 1).number == 2
