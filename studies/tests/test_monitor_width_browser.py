"""The monitor's participant table fits a 1280 px window: its last column (release an id)
is in view without scrolling sideways."""

import pytest

from studies.services.sessions import Identity, session_start
from studies.tests.factories import make_study
from studies.tests.test_study_browser import shot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_release_control_is_in_view_at_1280_px(browser, live_server, researcher, password):
    study = make_study(researcher, pairs=3)
    for n in range(3):
        session_start(
            study=study,
            identity=Identity(platform="prolific", external_id=f"{n:024x}", params={}),
            user_agent="test",
        )
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    sign_in(page, live_server, researcher, password)
    page.goto(f"{live_server.url}/studies/study/{study.slug}/")
    release = page.locator("details.release summary").first
    release.scroll_into_view_if_needed()
    box = release.bounding_box()
    shot(page, "monitor-1280")
    assert box is not None and box["x"] + box["width"] <= 1280
    scroller = page.locator("#monitor .wrap").first
    overflow = scroller.evaluate("el => el.scrollWidth - el.clientWidth")
    assert overflow <= 1, overflow
    context.close()
