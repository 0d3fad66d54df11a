"""The chart library in headless Chromium: the pair browser, editing a key, the participant
preview and the generator's side-by-side preview, with screenshots for a person to look at."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from demo.library import load_library_demo
from studies.models import Question
from studies.tests.test_library_helpers import chartom_files, small_files, zip_bytes

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENS = Path(__file__).resolve().parents[2] / "var" / "screens" / "issue3"


@pytest.fixture
def media_served():
    """The /media/ view reads MEDIA_ROOT per request, so this test's folder is served as is."""
    yield


@pytest.fixture
def shots():
    SCREENS.mkdir(parents=True, exist_ok=True)

    def shoot(page, name, **kw):
        page.wait_for_load_state("networkidle")
        page.screenshot(path=str(SCREENS / f"{name}.png"), **kw)

    return shoot


def sign_in(page, live_server, user, password):
    page.goto(f"{live_server.url}/login/")
    page.get_by_label("Username").fill(user.username)
    page.get_by_label("Password").fill(password)
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/researcher/")


def no_sideways_scroll(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_a_researcher_browses_pairs_edits_a_key_and_previews_a_chart(
    page, live_server, researcher, password, shots, media_served
):
    load_library_demo(researcher)
    sign_in(page, live_server, researcher, password)
    page.goto(f"{live_server.url}/studies/library/")
    shots(page, "01-library", full_page=True)
    page.get_by_role("link", name="Demo benchmark").click()
    page.wait_for_url("**/studies/library/demo-benchmark/")
    assert page.locator(".pair-row").count() == 16
    # Every image loaded (naturalWidth is 0 for a broken image).
    page.wait_for_load_state("networkidle")
    page.locator(".pair-row img").first.scroll_into_view_if_needed()
    assert (
        page.evaluate("[...document.images].filter(i => i.complete && i.naturalWidth === 0).length")
        == 0
    )
    shots(page, "02-pair-browser")
    shots(page, "03-pair-browser-full", full_page=True)

    page.get_by_role("navigation", name="Groups").get_by_role("link", name="G13").click()
    page.get_by_role("article", name="G13_Q1").get_by_role("link", name="Edit pair").click()
    page.wait_for_url("**/pairs/G13_Q1/")
    key = page.get_by_role("textbox", name="Answer key")
    key.fill("Altex")
    page.get_by_role("button", name="Save question").click()
    expect(page.get_by_text("has one item")).to_be_visible()
    shots(page, "04-pair-edit-error", full_page=True)
    key.fill("Altex > Brightway > Dunmore > Corvana > Elsinor")
    page.get_by_role("button", name="Save question").click()
    expect(page.get_by_text("Question G13_Q1 saved.")).to_be_visible()
    assert Question.objects.get(code="G13_Q1").key_value[2] == "Dunmore"

    page.get_by_role("link", name="Preview as a participant").nth(1).click()
    page.wait_for_url("**/charts/G13_Q1_2/preview/")
    assert page.get_by_role("navigation", name="Main").count() == 0
    for i, item in enumerate(["Altex", "Brightway", "Dunmore", "Corvana", "Elsinor"]):
        page.get_by_label(f"Place of {item}").select_option(str(i + 1))
    page.get_by_role("button", name="Next").click()
    expect(page.get_by_text("Correct.", exact=True)).to_be_visible()
    shots(page, "05-participant-preview-ranking", full_page=True)

    # The free-text trial, by keyboard only.
    page.goto(f"{live_server.url}/studies/library/demo-benchmark/charts/G7_Q1_2/preview/")
    page.get_by_label("Your answer (a number)").focus()
    page.keyboard.type("lots")
    page.keyboard.press("Enter")
    expect(page.get_by_role("alert").get_by_text("Please enter a number")).to_be_visible()
    shots(page, "06-participant-preview-number-error", full_page=True)

    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{live_server.url}/studies/library/demo-benchmark/")
    assert no_sideways_scroll(page)
    shots(page, "07-pair-browser-phone")
    page.goto(f"{live_server.url}/studies/library/demo-benchmark/charts/G3_Q1_2/preview/")
    assert no_sideways_scroll(page)
    shots(page, "08-participant-preview-phone", full_page=True)


def test_a_researcher_previews_a_generated_pair_side_by_side_and_saves_it(
    page, live_server, researcher, password, shots, media_served
):
    sign_in(page, live_server, researcher, password)
    page.goto(f"{live_server.url}/studies/library/generator/")
    expect(page.get_by_text("No preview yet.")).to_be_visible()
    page.get_by_label("Start from a demo spec").select_option("G9_Q1")
    page.get_by_role("button", name="Load").click()
    page.get_by_role("button", name="Preview both versions").click()
    previews = page.locator(".preview-pair img")
    assert previews.count() == 2
    assert page.evaluate(
        "[...document.querySelectorAll('.preview-pair img')].every(i => i.naturalWidth === 800)"
    )
    shots(page, "09-generator-preview", full_page=True)

    spec = page.get_by_label("Chart spec (JSON)")
    spec.fill(spec.input_value().replace('"dual_axes"', '"bar_3d"'))
    page.get_by_role("button", name="Preview both versions").click()
    expect(page.get_by_role("alert").first).to_be_visible()
    expect(page.get_by_text("bar_3d is not supported on line charts")).to_be_visible()
    shots(page, "10-generator-spec-error", full_page=True)
    spec.fill(spec.input_value().replace('"bar_3d"', '"dual_axes"'))

    page.get_by_label("Title of the new set").fill("My generated pairs")
    page.get_by_role("button", name="Save pair").click()
    page.wait_for_url("**/studies/library/my-generated-pairs/pairs/G9_Q1/")
    expect(page.get_by_text("Pair G9_Q1 added to")).to_be_visible()
    shots(page, "11-generated-pair-saved", full_page=True)

    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{live_server.url}/studies/library/generator/?fixture=G15_Q1")
    page.get_by_role("button", name="Preview both versions").click()
    assert no_sideways_scroll(page)
    shots(page, "12-generator-phone", full_page=True)


def test_a_researcher_imports_a_benchmark_from_the_upload_form(
    page, live_server, researcher, password, shots, media_served
):
    sign_in(page, live_server, researcher, password)
    page.goto(f"{live_server.url}/studies/library/import/")
    bad = small_files()
    bad["chart_images/G7_Q1_2.png"] = b"GIF87a broken"
    bad["FACT_answer_keys.csv"] += b"G3_Q1_1,multiple choice,2\n"
    page.get_by_label("Benchmark (.zip)").set_input_files(
        files=[{"name": "CHARTOM.zip", "mimeType": "application/zip", "buffer": zip_bytes(bad)}]
    )
    page.get_by_role("button", name="Import").click()
    alert = page.get_by_role("alert").filter(has_text="nothing was imported")
    expect(alert).to_contain_text("chart_images/G7_Q1_2.png")
    expect(alert).to_contain_text("FACT_answer_keys.csv, row 8")
    shots(page, "13-import-problems", full_page=True)

    page.get_by_label("Benchmark (.zip)").set_input_files(
        files=[
            {
                "name": "CHARTOM.zip",
                "mimeType": "application/zip",
                "buffer": zip_bytes(chartom_files()),
            }
        ]
    )
    page.get_by_role("button", name="Import").click()
    page.wait_for_url("**/studies/library/chartom/")
    expect(page.get_by_text("56 pairs imported")).to_be_visible()
    assert page.locator(".pair-row").count() == 56
    shots(page, "14-imported-chartom")
