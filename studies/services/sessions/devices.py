"""Which devices may take a study: computers and tablets only (the default), or phones too.

A phone shows a chart about 390 px wide, where its labels shrink to a few pixels, so a
study allows phones only when its researcher says so. Phones are recognised twice:

- on the server, from what the browser says about itself: the ``Sec-CH-UA-Mobile: ?1``
  client hint (Chromium browsers send it on phones, ``?0`` on tablets and computers) or,
  where there is no hint, a user agent with "Mobi" in it (the token phone browsers add and
  tablets leave out; iPads are named and let through);
- in the browser, by static/js/device_check.js: a screen whose shorter side is under
  600 CSS pixels is a phone's, whatever the user agent claims (a desktop browser in
  phone mode, a phone asking for the desktop site).

Both checks run before the consent page, so nothing is stored about someone who cannot
take part; the session start refuses a phone as well, for clients that skip the pages.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy

from studies.models import Study
from studies.services.sessions.errors import SessionError

DEVICE_MESSAGE = gettext_lazy(
    "This study shows charts that need a bigger screen than a phone's, so it cannot be "
    "taken on a phone. Please open the same link on a computer or a tablet. This page has "
    "stored nothing about you."
)
# The shorter side of a screen below which device_check.js takes it for a phone.
PHONE_SCREEN_PX = 600


class DeviceNotAllowed(SessionError):
    """The study is for computers and tablets, and this is a phone."""

    code = "device_not_allowed"
    status = 409


def is_phone(*, user_agent: str, mobile_hint: str | None = None) -> bool:
    """Whether a request comes from a phone, by its client hint or else its user agent."""
    hint = (mobile_hint or "").strip()
    if hint in ("?1", "?0"):
        return hint == "?1"
    agent = user_agent or ""
    if "iPad" in agent or "Tablet" in agent:
        return False
    return "Mobi" in agent


def is_phone_request(meta) -> bool:
    return is_phone(
        user_agent=meta.get("HTTP_USER_AGENT", ""), mobile_hint=meta.get("HTTP_SEC_CH_UA_MOBILE")
    )


def device_check(*, study: Study, meta) -> None:
    """Refuse a phone when the study is for computers and tablets only."""
    if not study.allows_phones and is_phone_request(meta):
        raise DeviceNotAllowed(str(DEVICE_MESSAGE))
