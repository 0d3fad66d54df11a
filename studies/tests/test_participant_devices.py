"""A study for computers and tablets turns phones away before consent, in both flows."""

import pytest
from django.urls import reverse
from django.utils.html import escape
from rest_framework.test import APIClient

from studies.models import Devices, ParticipantSession
from studies.services.sessions.devices import DEVICE_MESSAGE, is_phone
from studies.tests.factories import make_study

pytestmark = pytest.mark.django_db

IPHONE = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 "
    "(KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"
)
ANDROID_PHONE = (
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/124.0 Mobile Safari/537.36"
)
ANDROID_TABLET = (
    "Mozilla/5.0 (Linux; Android 13; SM-X200) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/124.0 Safari/537.36"
)
OLD_IPAD = (
    "Mozilla/5.0 (iPad; CPU OS 12_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/12.1 Mobile/15E148 Safari/604.1"
)
FIREFOX_TABLET = "Mozilla/5.0 (Android 13; Tablet; rv:125.0) Gecko/125.0 Firefox/125.0"
# A Fire tablet's Silk browser in its mobile view, and phones of other browsers.
FIRE_TABLET_MOBILE_VIEW = (
    "Mozilla/5.0 (Linux; Android 9; KFMUWI) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Silk/124.3.1 like Chrome/124.0 Mobile Safari/537.36"
)
FIREFOX_PHONE = "Mozilla/5.0 (Android 14; Mobile; rv:125.0) Gecko/125.0 Firefox/125.0"
SAMSUNG_PHONE = (
    "Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) "
    "SamsungBrowser/24.0 Chrome/117.0 Mobile Safari/537.36"
)
IPADOS_DESKTOP_SITE = (
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 "
    "(KHTML, like Gecko) Version/17.4 Safari/605.1.15"
)
DESKTOP = (
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/124.0 Safari/537.36"
)
PID = "5f1d2c3b4a5968778695a4b3"


@pytest.mark.parametrize(
    ("agent", "hint", "phone"),
    [
        (IPHONE, None, True),
        (ANDROID_PHONE, None, True),
        (ANDROID_TABLET, None, False),
        (OLD_IPAD, None, False),
        (FIREFOX_TABLET, None, False),
        (DESKTOP, None, False),
        (DESKTOP, "?1", True),  # the client hint wins over the user agent
        (ANDROID_PHONE, "?0", False),
        ("", None, False),
        (FIREFOX_PHONE, None, True),
        (SAMSUNG_PHONE, None, True),
        (SAMSUNG_PHONE, "?1", True),
        (IPADOS_DESKTOP_SITE, None, False),
        # A named tablet is one even asking for the mobile site, hint and all.
        (FIRE_TABLET_MOBILE_VIEW, None, False),
        (FIRE_TABLET_MOBILE_VIEW, "?1", False),
        (OLD_IPAD, "?1", False),
    ],
)
def test_a_phone_is_told_apart_by_its_client_hint_or_its_user_agent(agent, hint, phone):
    assert is_phone(user_agent=agent, mobile_hint=hint) is phone


def test_studies_are_for_computers_and_tablets_unless_the_researcher_allows_phones(researcher):
    study = make_study(researcher)
    assert study.allowed_devices == Devices.DESKTOP_TABLET and not study.allows_phones


def _welcome(study):
    return reverse("participate:welcome", args=[study.slug]) + f"?PROLIFIC_PID={PID}"


def test_a_phone_gets_the_explanation_instead_of_the_welcome_and_nothing_is_stored(
    client, researcher
):
    study = make_study(researcher)
    response = client.get(_welcome(study), HTTP_USER_AGENT=IPHONE)
    assert response.status_code == 200
    text = response.content.decode()
    assert "Please use a computer or a tablet" in text
    assert "open the same link on a computer or a tablet" in text
    assert "Begin" not in text
    consent = client.get(
        reverse("participate:consent", args=[study.slug]) + f"?PROLIFIC_PID={PID}",
        HTTP_USER_AGENT=ANDROID_PHONE,
    )
    assert "Please use a computer or a tablet" in consent.content.decode()
    agreed = client.post(
        reverse("participate:consent", args=[study.slug]),
        {"choice": "agree", "PROLIFIC_PID": PID},
        HTTP_USER_AGENT=IPHONE,
    )
    assert agreed.status_code == 200 and not agreed.cookies
    declined = client.post(
        reverse("participate:consent", args=[study.slug]),
        {"choice": "decline", "PROLIFIC_PID": PID},
        HTTP_SEC_CH_UA_MOBILE="?1",
    )
    assert "Please use a computer or a tablet" in declined.content.decode()
    assert not ParticipantSession.objects.exists()


def test_the_page_device_check_js_sends_phones_to_says_the_same(client, researcher):
    study = make_study(researcher)
    response = client.get(reverse("participate:device", args=[study.slug]))
    assert response.status_code == 200
    assert escape(str(DEVICE_MESSAGE)) in response.content.decode()
    welcome = client.get(_welcome(study), HTTP_USER_AGENT=DESKTOP).content.decode()
    assert f'data-phone-refusal="/s/{study.slug}/device/"' in welcome
    assert "js/device_check.js" in welcome

    phones = make_study(researcher, allowed_devices=Devices.ALL)
    page = client.get(reverse("participate:device", args=[phones.slug]))
    assert page.status_code == 302 and page["Location"].endswith(f"/s/{phones.slug}/")
    assert "data-phone-refusal" not in client.get(_welcome(phones)).content.decode()


NOSCRIPT_NOTE = "Please do not take it on a phone."


def test_without_javascript_the_pages_say_the_study_is_not_for_phones(client, researcher):
    # A phone asking for the desktop site looks like a computer to the server; only the
    # screen check in device_check.js would catch it, so the pages say it themselves.
    study = make_study(researcher)
    consent = reverse("participate:consent", args=[study.slug]) + f"?PROLIFIC_PID={PID}"
    for url in (_welcome(study), consent):
        page = client.get(url, HTTP_USER_AGENT=IPADOS_DESKTOP_SITE).content.decode()
        note = page.index(NOSCRIPT_NOTE)
        assert page.rindex("<noscript>", 0, note) > page.rfind("</noscript>", 0, note)
    phones = make_study(researcher, allowed_devices=Devices.ALL)
    assert NOSCRIPT_NOTE not in client.get(_welcome(phones)).content.decode()


def test_a_fire_tablet_in_its_mobile_view_takes_part(client, researcher):
    study = make_study(researcher)
    assert (
        "Begin"
        in client.get(_welcome(study), HTTP_USER_AGENT=FIRE_TABLET_MOBILE_VIEW).content.decode()
    )
    response = client.post(
        reverse("participate:consent", args=[study.slug]),
        {"choice": "agree", "PROLIFIC_PID": PID},
        HTTP_USER_AGENT=FIRE_TABLET_MOBILE_VIEW,
        HTTP_SEC_CH_UA_MOBILE="?1",
    )
    assert response.status_code == 302
    assert ParticipantSession.objects.filter(external_id=PID).exists()


def test_tablets_and_allowed_phones_take_part(client, researcher):
    study = make_study(researcher)
    response = client.post(
        reverse("participate:consent", args=[study.slug]),
        {"choice": "agree", "PROLIFIC_PID": PID},
        HTTP_USER_AGENT=ANDROID_TABLET,
    )
    assert response.status_code == 302
    phones = make_study(researcher, allowed_devices=Devices.ALL)
    assert "Begin" in client.get(_welcome(phones), HTTP_USER_AGENT=IPHONE).content.decode()
    response = client.post(
        reverse("participate:consent", args=[phones.slug]),
        {"choice": "agree", "PROLIFIC_PID": PID},
        HTTP_USER_AGENT=IPHONE,
    )
    assert response.status_code == 302
    assert ParticipantSession.objects.filter(external_id=PID).count() == 2


def test_the_json_flow_refuses_a_phone_with_409_and_stores_nothing(researcher):
    study = make_study(researcher)
    api = APIClient()
    url = f"/api/v1/participate/studies/{study.slug}/sessions/"
    public = api.get(f"/api/v1/participate/studies/{study.slug}/").json()
    assert public["allowed_devices"] == "desktop_tablet"
    body = {"consent": True, "params": {"PROLIFIC_PID": PID}}
    refused = api.post(url, body, format="json", HTTP_USER_AGENT=IPHONE)
    assert refused.status_code == 409
    assert refused.json()["code"] == "device_not_allowed"
    assert refused.json()["detail"] == DEVICE_MESSAGE and "token" not in refused.json()
    assert not ParticipantSession.objects.exists()
    started = api.post(url, body, format="json", HTTP_USER_AGENT=DESKTOP)
    assert started.status_code == 201


def test_researchers_set_the_device_policy_in_the_api(researcher_api, researcher):
    study = make_study(researcher, status="draft")
    url = f"/api/v1/studies/{study.slug}/"
    assert researcher_api.get(url).json()["allowed_devices"] == "desktop_tablet"
    changed = researcher_api.patch(url, {"allowed_devices": "all"}, format="json")
    assert changed.status_code == 200 and changed.json()["allowed_devices"] == "all"
    wrong = researcher_api.patch(url, {"allowed_devices": "phones"}, format="json")
    assert wrong.status_code == 400 and "allowed_devices" in wrong.json()["errors"]
    study.refresh_from_db()
    assert study.allows_phones
