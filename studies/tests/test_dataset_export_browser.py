"""A researcher picks a license for a study, then downloads the HMI dataset from the results
page: the license is in every metadata file of the zip."""

import io
import json
import zipfile
from pathlib import Path

import pytest
from playwright.sync_api import expect

from studies.tests.factories import simulated_study
from studies.tests.test_results_browser import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENS = Path(__file__).resolve().parents[2] / "var" / "screens" / "issue20"


def test_the_hmi_dataset_downloads_with_the_chosen_license(page, live_server, researcher, password):
    study = simulated_study(researcher, participants=6, compute=False)
    sign_in(page, live_server, researcher, password)
    page.goto(f"{live_server.url}/studies/study/{study.slug}/edit/")
    page.get_by_label("Dataset license").select_option("CC-BY-NC-4.0")
    page.get_by_label("Citation").fill("@misc{demo2026, title={Demo HMI}}")
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.locator("fieldset", has_text="Publishing the dataset").screenshot(
        path=str(SCREENS / "01-study-license.png")
    )
    page.get_by_role("button", name="Save settings").click()
    expect(page.get_by_text("Settings saved.")).to_be_visible()

    page.goto(f"{live_server.url}/studies/study/{study.slug}/results/")
    with page.expect_download() as download:
        page.get_by_role("link", name="HMI dataset to publish").click()
    archive = zipfile.ZipFile(io.BytesIO(Path(download.value.path()).read_bytes()))
    croissant = json.loads(archive.read("croissant.json"))
    package = json.loads(archive.read("datapackage.json"))
    card = archive.read("README.md").decode()
    assert croissant["license"] == "https://creativecommons.org/licenses/by-nc/4.0/"
    assert package["licenses"][0]["name"] == "CC-BY-NC-4.0"
    assert "license: cc-by-nc-4.0" in card and "@misc{demo2026" in card
