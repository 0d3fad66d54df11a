"""The token a consent form carries, so that the same form sent twice is one start.

A browser that sends the consent form twice (Enter pressed twice on "I agree") drops the
first response, and with it the cookie naming the new session; the second request was
then refused as someone else using the same platform id, and the participant could not
get back in. The form carries the session token to use, chosen when the page was drawn
and signed so that no one else can choose it: the session is created with it, and the
repeated request proves itself with it. A decline does the same, so it is counted once.
"""

from __future__ import annotations

from django.core import signing

from studies.models.sessions import new_session_token

_SALT = "chartroom.consent-start"
# Long enough to read a consent text and come back to it; a page older than this draws
# a fresh token on submit (a double submit then cannot be told apart, as before).
MAX_AGE_SECONDS = 24 * 3600


def start_token_issue(study_id: int) -> str:
    """A signed, new session token for one consent form of one study."""
    return signing.dumps({"s": study_id, "t": new_session_token()}, salt=_SALT)


def start_token_read(signed: str, study_id: int) -> str:
    """The session token a consent form carried, or "" (missing, forged, old, other study)."""
    try:
        value = signing.loads(signed[:300], salt=_SALT, max_age=MAX_AGE_SECONDS)
    except signing.BadSignature:
        return ""
    if not isinstance(value, dict) or value.get("s") != study_id:
        return ""
    token = value.get("t")
    return token if isinstance(token, str) else ""
