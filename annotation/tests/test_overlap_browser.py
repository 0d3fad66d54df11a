"""A researcher switches the demo project to adaptive overlap and Dawid-Skene, in headless Chromium.

Annotators then work (one in the browser, the others through the services for
speed), and the report and exports show the new labels, posteriors and the
annotators' estimated sensitivity and specificity.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from playwright.sync_api import expect

from annotation.models import Item, LabelSet, Project
from annotation.services import assignment_next, assignment_submit
from demo.annotation import load_annotation_demo

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENS = Path(__file__).resolve().parents[2] / "var" / "screens" / "issue18"


@pytest.fixture
def demo(researcher, make_user):
    annotators = [make_user("annotator", username=f"annotator{n}") for n in (1, 2, 3)]
    project = load_annotation_demo(researcher, annotators)
    return project, annotators


def sign_in(page, live_server, user, password):
    page.goto(f"{live_server.url}/login/")
    page.get_by_label("Username").fill(user.username)
    page.get_by_label("Password").fill(password)
    page.keyboard.press("Enter")
    page.wait_for_url(lambda url: not url.endswith("/login/"))


def work_through(project, annotator, limit=40):
    """The annotator labels what the queue gives them, with the item's reference labels."""
    references = dict(project.items.values_list("pk", "reference__labels"))
    for _ in range(limit):
        assignment = assignment_next(project=project, annotator=annotator)
        if assignment is None:
            return
        labels = references.get(assignment.item_id) or [[] for _ in assignment.item.sentences]
        assignment_submit(assignment_id=assignment.pk, annotator=annotator, labels=labels)


def switch_settings(page, live_server, project):
    page.goto(f"{live_server.url}/annotation/projects/{project.slug}/settings/")
    page.locator('select[name="overlap_policy"]').select_option("adaptive")
    page.locator('input[name="overlap_k_min"]').fill("2")
    page.locator('input[name="overlap_k_max"]').fill("3")
    page.locator('select[name="aggregation_method"]').select_option("dawid_skene")
    # The default rule and threshold are kept, and the page says what the threshold trades.
    expect(page.locator('select[name="overlap_rule"]')).to_have_value("confidence")
    expect(page.locator('input[name="overlap_threshold"]')).to_have_value("0.3")
    expect(page.get_by_text("a lower threshold asks for more label sets")).to_be_visible()
    page.screenshot(path=str(SCREENS / "settings.png"), full_page=True)
    page.get_by_role("button", name="Save settings").click()
    expect(page.get_by_text("Settings saved.")).to_be_visible()


def test_adaptive_overlap_and_dawid_skene_from_settings_to_exports(
    browser, page, live_server, demo, researcher, password
):
    SCREENS.mkdir(parents=True, exist_ok=True)
    project, annotators = demo
    sign_in(page, live_server, researcher, password)
    # A mistake first: the page says what is wrong and keeps the project as it was.
    page.goto(f"{live_server.url}/annotation/projects/{project.slug}/settings/")
    page.locator('select[name="overlap_policy"]').select_option("adaptive")
    page.locator('input[name="overlap_k_min"]').fill("4")
    page.locator('input[name="overlap_k_max"]').fill("3")
    page.get_by_role("button", name="Save settings").click()
    # Said beside the field and in the summary the page opens with, focused.
    expect(page.locator("#id_overlap_k_max_error")).to_contain_text(
        "k_max must be at least k_min (4)"
    )
    summary = page.locator("[data-error-summary]")
    expect(summary).to_be_focused()
    expect(summary).to_contain_text("k_max must be at least k_min (4)")
    assert Project.objects.get(pk=project.pk).overlap_policy == "fixed"

    switch_settings(page, live_server, project)
    project.refresh_from_db()
    assert (project.overlap_policy, project.aggregation_method) == ("adaptive", "dawid_skene")
    assert (project.overlap_rule, project.overlap_threshold) == ("confidence", 0.3)

    # One annotator labels an item in the browser.
    worker = browser.new_context()
    work_page = worker.new_page()
    sign_in(work_page, live_server, annotators[0], password)
    work_page.goto(f"{live_server.url}/annotation/p/{project.slug}/work/")
    state = json.loads(work_page.locator("#work-state").text_content())
    lease = state["assignment"]
    work_page.locator(".sentence").first.click()
    work_page.keyboard.press("v")
    expect(work_page.locator("#submit")).to_be_enabled()  # the item has settled
    work_page.keyboard.press("Enter")
    # The next item (or the end of the work) replaces the submitted one.
    work_page.wait_for_function(
        "() => { const s = document.getElementById('work-state'); "
        f"return !s || JSON.parse(s.textContent).assignment !== {lease}; }}"
    )
    assert LabelSet.objects.filter(assignment_id=lease).exists()
    worker.close()
    # The others (and the rest of the first one's work) through the services.
    for annotator in annotators:
        work_through(project, annotator)

    page.goto(f"{live_server.url}/annotation/projects/{project.slug}/")
    expect(page.locator("#overlap-budget")).to_contain_text("at most")
    expect(page.get_by_text("settled (adaptive overlap, k = 2 to 3)")).to_be_visible()
    page.screenshot(path=str(SCREENS / "project-budget.png"), full_page=True)

    report_url = f"{live_server.url}/annotation/projects/{project.slug}/report/"
    page.goto(report_url)
    expect(page.locator(".report-status")).to_contain_text("Up to date")
    expect(page.locator("#agreement-basis")).to_contain_text("first k_min = 2 label sets")
    expect(
        page.get_by_text("estimated sensitivity / specificity per category (Dawid-Skene)")
    ).to_be_visible()
    estimates = page.get_by_role("table", name="estimated sensitivity", exact=False)
    expect(estimates.locator("tbody tr").first).to_contain_text("/")
    expect(page.get_by_text("The least certain labels")).to_be_visible()
    page.screenshot(path=str(SCREENS / "report.png"), full_page=True)

    # The labels CSV with the Dawid-Skene labels and posteriors.
    row = page.get_by_role("row", name="Dawid-Skene (the project's)")
    href = row.get_by_role("link", name="labels-csv").get_attribute("href")
    response = page.request.get(f"{live_server.url}{href}")
    assert response.ok
    rows = list(csv.DictReader(io.StringIO(response.text())))
    assert rows and {"method", "aggregated", "p_positive"} <= set(rows[0])
    assert {r["method"] for r in rows} == {"dawid_skene"}
    assert all(0 <= float(r["p_positive"]) <= 1 for r in rows if r["p_positive"] != "")

    # The queue kept its promises: at most k_max per item, nobody twice on an item.
    ordinary = Item.objects.filter(project=project, gold__isnull=True)
    assert max(ordinary.values_list("submitted_count", flat=True)) <= 3
    pairs = list(LabelSet.objects.filter(project=project).values_list("item_id", "annotator_id"))
    assert len(pairs) == len(set(pairs))
