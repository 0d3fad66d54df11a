"""A researcher picks a license on a project's settings page, then downloads the dataset zip
from the agreement report: the license is in every metadata file."""

import io
import json
import zipfile
from pathlib import Path

import pytest

from annotation.tests.factories import submit

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENS = Path(__file__).resolve().parents[2] / "var" / "screens" / "issue20"


def sign_in(page, live_server, user, password):
    page.goto(f"{live_server.url}/login/")
    page.get_by_label("Username").fill(user.username)
    page.get_by_label("Password").fill(password)
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/researcher/")


def test_the_caption_dataset_downloads_with_the_chosen_license(
    page, live_server, researcher, password, project, make_items, members
):
    a, b = members(2)
    (item,) = make_items(project, 1)
    submit(project, item, a, [["value_error"], []])
    submit(project, item, b, [["value_error"], ["trend_error"]])
    sign_in(page, live_server, researcher, password)
    page.goto(f"{live_server.url}/annotation/projects/{project.slug}/settings/")
    page.get_by_label("License").select_option("CC-BY-SA-4.0")
    page.get_by_label("Citation").fill("Doe, J. Caption errors. 2026.")
    page.get_by_role("button", name="Save settings").click()

    page.goto(f"{live_server.url}/annotation/projects/{project.slug}/report/")
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.locator("#downloads-heading").scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENS / "02-report-downloads.png"))
    with page.expect_download() as download:
        page.get_by_role("link", name="Dataset to publish").click()
    archive = zipfile.ZipFile(io.BytesIO(Path(download.value.path()).read_bytes()))
    croissant = json.loads(archive.read("croissant.json"))
    package = json.loads(archive.read("datapackage.json"))
    card = archive.read("README.md").decode()
    assert croissant["license"] == "https://creativecommons.org/licenses/by-sa/4.0/"
    assert package["licenses"][0]["name"] == "CC-BY-SA-4.0"
    assert "license: cc-by-sa-4.0" in card and "Doe, J. Caption errors. 2026." in card
    assert json.loads(archive.read("chocolate.json"))[0]["_id"] == item.external_id
