"""Which devices may take a study: computers and tablets only (the default), or phones too.

A phone shows a chart about 390 px wide, where its labels shrink to a few pixels, so a
study allows phones only when its researcher says so. Phones are recognised twice:

- on the server, from what the browser says about itself, so that it works with
  JavaScript off and for JSON clients too (see :func:`is_phone`);
- in the browser, by static/js/device_check.js: a screen whose shorter side is under
  600 CSS pixels is a phone's, whatever the user agent claims (a desktop browser in
  phone mode, a phone asking for the desktop site).

What the server can and cannot tell, and why it errs towards letting people in: a tablet
or computer wrongly refused loses a participant who could have taken part, while a phone
let through still meets the screen check wherever JavaScript runs.

- It recognises a phone whose browser says it is one: the ``Sec-CH-UA-Mobile: ?1`` client
  hint (Chromium browsers send it on phones, ``?0`` on tablets and computers) or, where
  there is no hint, a user agent with "Mobi" in it, the token phone browsers add (Safari
  on iPhone, Chrome, Firefox and Samsung Internet on Android phones, Opera Mobile, KaiOS).
- It lets through every device whose user agent names it a tablet, even when it asks
  for the mobile site (which adds "Mobi" and, in Chromium, the ``?1`` hint): iPads (since
  iPadOS 13 they name themselves a Mac anyway), Firefox's "Tablet", and Amazon's Fire
  tablets, whose Silk browser sends "Mobile Safari" in its mobile view. Android tablets
  need no rule: by Android's convention their browsers leave "Mobile" out.
- It cannot see a phone that hides: a phone browser asking for the desktop site, an
  in-app browser with a made-up agent, Opera Mini's proxy (no "Mobi"). Only the screen
  check catches those, so with JavaScript off the welcome and consent pages say in a
  ``<noscript>`` note that the study is not for phones, and nothing more can be done.

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


# User-agent tokens of tablets, whatever else the agent or the client hint says (see above).
TABLET_TOKENS = ("iPad", "Tablet", "Silk/")


def is_phone(*, user_agent: str, mobile_hint: str | None = None) -> bool:
    """Whether a request comes from a phone: never for a named tablet, else by its client
    hint, else by "Mobi" in its user agent (see the module's docstring for the limits)."""
    agent = user_agent or ""
    if any(token in agent for token in TABLET_TOKENS):
        return False
    hint = (mobile_hint or "").strip()
    if hint in ("?1", "?0"):
        return hint == "?1"
    return "Mobi" in agent


def is_phone_request(meta) -> bool:
    return is_phone(
        user_agent=meta.get("HTTP_USER_AGENT", ""), mobile_hint=meta.get("HTTP_SEC_CH_UA_MOBILE")
    )


def device_check(*, study: Study, meta) -> None:
    """Refuse a phone when the study is for computers and tablets only."""
    if not study.allows_phones and is_phone_request(meta):
        raise DeviceNotAllowed(str(DEVICE_MESSAGE))
