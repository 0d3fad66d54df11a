"""The results and Models pages in headless Chromium: a recompute that answers at once, figures
whose legends keep off the data, a Models page that folds to one screen, charts in natural order."""

from pathlib import Path

import pytest
from playwright.sync_api import expect

from analysis.tables import natural_sorted
from demo.model_eval import load_model_eval_demo
from studies.tests.factories import simulated_study
from studies.tests.test_results_browser import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENS = Path(__file__).resolve().parents[2] / "var" / "screens" / "issue17"

# Every figure's legend box and every mark box (the ids hmi_plots gives its bars and dots),
# in the figure's own coordinates, and the pairs that overlap.
OVERLAPS_JS = """
() => Array.from(document.querySelectorAll("figure .svg svg")).map((svg) => {
  const legends = Array.from(svg.querySelectorAll('g[id^="legend"]')).map((g) => g.getBBox());
  const marks = Array.from(svg.querySelectorAll('g[id^="hmi-"]'));
  const hits = [];
  for (const legend of legends) {
    for (const mark of marks) {
      const b = mark.getBBox();
      if (b.x < legend.x + legend.width && legend.x < b.x + b.width &&
          b.y < legend.y + legend.height && legend.y < b.y + b.height) { hits.push(mark.id); }
    }
  }
  return {legends: legends.length, marks: marks.length, hits: hits};
})
"""


def shot(page, name):
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENS / f"{name}.png"), full_page=True)


def chart_ids(page, selector):
    return page.locator(selector).evaluate_all("els => els.map(e => e.textContent.trim())")


def test_recompute_answers_at_once_and_the_status_panel_follows_the_job(
    page, live_server, researcher, password, settings
):
    settings.CHARTROOM_JOB_RUNNER = "local"  # the embedded default: jobs on a thread
    study = simulated_study(researcher, participants=30, pairs=11)
    sign_in(page, live_server, researcher, password)
    page.goto(f"{live_server.url}/studies/study/{study.slug}/results/")
    with page.expect_response(lambda r: r.url.endswith("/results/compute/")) as info:
        page.get_by_role("button", name="Recompute now").click()
    # From the request leaving the browser to the last byte of the answer, in ms.
    timing = info.value.request.timing
    assert timing["responseEnd"] - timing["requestStart"] < 1000, timing
    page.wait_for_load_state()
    expect(page.get_by_text("Recompute started")).to_be_visible()
    shot(page, "01-recompute-started")
    page.locator("#job-state .badge-done").wait_for(timeout=90_000)
    expect(page.get_by_text("Last run finished")).to_be_visible()
    shot(page, "02-recompute-done")


def test_figures_keep_their_legends_off_the_marks_and_charts_sort_naturally(
    page, live_server, researcher, password
):
    study = simulated_study(researcher, participants=30, pairs=11)
    sign_in(page, live_server, researcher, password)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/studies/study/{study.slug}/results/")
    figures = page.evaluate(OVERLAPS_JS)
    assert len(figures) == 2
    for figure in figures:
        assert figure["legends"] == 1 and figure["marks"] > 0, figure
        assert figure["hits"] == [], figure
    titles = page.locator("figure svg title").all_text_contents()
    assert any(t.startswith("G1_Q10_2 (manipulated): HMI ") for t in titles), titles[:3]
    page.locator("#figure-hmi-sorted").scroll_into_view_if_needed()
    shot(page, "03-results-figures")

    ids = chart_ids(page, ".hmi-table tbody.chart-row th[scope=row]")
    assert len(ids) == 22 and ids == natural_sorted(ids), ids
    assert ids.index("G1_Q2_1") < ids.index("G1_Q10_1")
    header = page.locator(".hmi-table thead button", has_text="Chart")
    header.click()  # descending
    header.click()  # ascending again
    assert chart_ids(page, ".hmi-table tbody.chart-row th[scope=row]") == ids
    assert "Multiple choice" in page.locator(".hmi-table").inner_text()
    assert "multiple_choice" not in page.locator(".hmi-table").inner_text()
    page.locator("button.drill").first.click()
    detail = page.locator("tr.answers:not([hidden])").first
    assert "FACT question" in detail.inner_text() and "Answer key" in detail.inner_text()
    shot(page, "04-results-row-detail")


def test_a_models_page_computes_as_a_job_folds_to_one_screen_and_formats_numbers(
    page, live_server, researcher, password, settings
):
    settings.CHARTROOM_JOB_RUNNER = "local"
    study = simulated_study(researcher, participants=20, pairs=11, checks=None)
    load_model_eval_demo(study)
    sign_in(page, live_server, researcher, password)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/studies/study/{study.slug}/models/")
    # The first view starts the computation as a job and follows it, then shows the report.
    expect(page.locator("#job-state").get_by_text("Computing the model analyses")).to_be_visible()
    shot(page, "05-models-computing")
    page.get_by_role("heading", name="FACT error rates").wait_for(timeout=120_000)
    shot(page, "06-models-open")
    cells = page.locator("main table td").all_inner_texts()
    assert cells and not [c for c in cells if c in ("True", "False", "0.0", "1.0", "nan")]
    page.get_by_role("button", name="Fold all", exact=True).click()
    height = page.evaluate("document.documentElement.scrollHeight")
    shot(page, "07-models-folded")
    assert height <= 900, height
    page.get_by_role("link", name="Log odds ratio: models vs humans").click()
    # The link's script opens the section after the click; wait for it rather than race it.
    # (expect() polls from Playwright's side: a string predicate would be eval'd in the page,
    # which its Content-Security-Policy forbids.)
    expect(page.locator("details#logodds")).to_have_js_property("open", True)
    # Text cells at the start of the line, number cells at its end (left and right in a
    # left-to-right page; the style sheets say start/end so right-to-left pages mirror).
    aligns = page.locator("details#logodds table").first.evaluate(
        "t => Array.from(t.tBodies[0].rows[0].cells).map(c => getComputedStyle(c).textAlign)"
    )
    assert aligns[0] in ("left", "start") and {"right", "end"} & set(aligns), aligns
