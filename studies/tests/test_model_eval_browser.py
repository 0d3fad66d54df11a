"""A researcher reads the Models page in headless Chromium, on a desktop and a phone, and
downloads the analyses."""

import json
import zipfile
from pathlib import Path

import pytest
from django.core.cache import cache
from playwright.sync_api import expect

from demo.model_eval import load_model_eval_demo
from studies.tests.factories import simulated_study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENS = Path(__file__).resolve().parents[2] / "var" / "screens" / "issue9"


def shot(page, name):
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENS / f"{name}.png"), full_page=True)


def test_a_researcher_reads_the_model_analyses(page, live_server, researcher, password):
    study = simulated_study(researcher, participants=20, pairs=3, checks=None)
    load_model_eval_demo(study)
    page.goto(f"{live_server.url}/login/")
    page.get_by_label("Username").fill(researcher.username)
    page.get_by_label("Password").fill(password)
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/researcher/")
    page.goto(f"{live_server.url}/studies/study/{study.slug}/models/")
    expect(page.get_by_role("heading", name="FACT error rates")).to_be_visible()
    assert (
        page.get_by_role("link", name="Models", exact=True).get_attribute("aria-current") == "page"
    )
    shot(page, "01-models-desktop")
    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    width = page.evaluate("document.documentElement.scrollWidth")
    shot(page, "02-models-phone")
    assert width <= 390


def test_the_humans_bar_is_in_figure_3_and_the_analyses_download(
    page, live_server, researcher, password, tmp_path
):
    cache.clear()
    study = simulated_study(researcher, participants=20, pairs=3, checks=None)
    load_model_eval_demo(study)
    page.goto(f"{live_server.url}/login/")
    page.get_by_label("Username").fill(researcher.username)
    page.get_by_label("Password").fill(password)
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/researcher/")
    page.goto(f"{live_server.url}/studies/study/{study.slug}/models/")
    figure = page.get_by_role("img", name="FACT error rates per model")
    for scope in ("non-manipulated", "manipulated", "all"):
        assert figure.locator(f"#humans-{scope}").count() == 1
    expect(figure.locator("text", has_text="Humans").first).to_be_visible()
    expect(page.locator("#humans-note")).to_be_visible()
    expect(page.locator("tr.humans-row").first).to_be_visible()
    figure.scroll_into_view_if_needed()
    shot(page, "03-humans-in-figure-3")
    with page.expect_download() as info:
        page.get_by_role("link", name="Download analyses (zip)").click()
    download = info.value
    assert download.suggested_filename == f"{study.slug}-model-analyses.zip"
    path = tmp_path / download.suggested_filename
    download.save_as(path)
    archive = zipfile.ZipFile(path)
    assert "fact_error_rates.csv" in archive.namelist()
    report = json.loads(archive.read("report.json"))
    assert report["fact"]["overall"]["rows"][0][0] == "Humans"
    shot(page, "04-after-download")
