"""A researcher uploads a large caption file in headless Chromium and watches its job finish."""

from pathlib import Path

import pytest
from playwright.sync_api import expect

from annotation.models import Item
from annotation.services import import_jobs
from annotation.services.import_jobs import CAPTIONS_IMPORT_JOB
from annotation.tests.test_imports import as_json, record
from core.models import Job
from core.services.jobs import job_run
from core.tasks import run_job

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENS = Path(__file__).resolve().parents[2] / "var" / "screens" / "issue6"


def sign_in(page, live_server, user, password):
    page.goto(f"{live_server.url}/login/")
    page.get_by_label("Username").fill(user.username)
    page.get_by_label("Password").fill(password)
    page.keyboard.press("Enter")
    page.wait_for_url(lambda url: not url.endswith("/login/"))


def test_a_large_upload_is_followed_on_the_import_page_until_it_is_done(
    page, live_server, researcher, password, project, settings, tmp_path, monkeypatch
):
    SCREENS.mkdir(parents=True, exist_ok=True)
    settings.CHARTROOM_CAPTIONS_INLINE_BYTES = 100
    # The test is the worker: the job waits in the queue until the test runs it.
    queued: list[int] = []
    monkeypatch.setattr(run_job, "delay", queued.append)
    captions = tmp_path / "captions.json"
    captions.write_bytes(as_json(*(record(f"c{n}", labels=None) for n in range(1, 6))))

    sign_in(page, live_server, researcher, password)
    page.goto(f"{live_server.url}/annotation/projects/{project.slug}/import/")
    page.get_by_label("Caption file").set_input_files(str(captions))
    page.get_by_role("button", name="Import").click()
    page.wait_for_url("**/import/?job=*")
    job = Job.objects.get(kind=CAPTIONS_IMPORT_JOB)
    assert queued == [job.pk]
    state = page.locator("[data-job-state]")
    expect(state).to_have_text("Queued")
    expect(page.get_by_role("cell", name="Queued")).to_be_visible()  # in the import list too
    page.screenshot(path=str(SCREENS / "import-job-queued.png"), full_page=True)
    page.evaluate("window.notReloaded = true")

    # While the job checks the file, the page shows its stage without reloading.
    original = import_jobs._JobProgress.__call__
    looked = []

    def look(progress, fraction, message):
        original(progress, fraction, message)
        if message.startswith("Checking the caption file") and not looked:
            looked.append(message)
            expect(state).to_have_text("Running 0%")
            expect(page.locator(f'[data-job-badge="{job.pk}"]')).to_have_text("Running 0%")
            expect(page.locator("[data-job-message]")).to_have_text("Checking the caption file")
            assert page.evaluate("window.notReloaded") is True
            page.screenshot(path=str(SCREENS / "import-job-running.png"), full_page=True)

    monkeypatch.setattr(import_jobs._JobProgress, "__call__", look)
    job_run(job_id=job.pk)
    assert looked and Item.objects.filter(project=project).count() == 5

    # Done: the page reloads itself and shows the summary; the list shows the import.
    expect(page.get_by_text("Imported 5 items from captions.json")).to_be_visible()
    expect(page.locator("[data-job-state]")).to_have_text("Done")
    expect(page.get_by_role("cell", name="captions.json")).to_be_visible()
    assert page.evaluate("window.notReloaded") is None
    page.screenshot(path=str(SCREENS / "import-job-done.png"), full_page=True)
