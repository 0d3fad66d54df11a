"""Start-up refusals for production settings, kept apart so settings.py stays a list."""

from __future__ import annotations

# Keys that appear in tutorials, templates and this project's own docs: a site signed
# with one of them lets anyone forge sessions and password-reset links.
KNOWN_WEAK_SECRET_KEYS = {
    "...",
    "changeme",
    "change-me",
    "secret",
    "secret-key",
    "secret_key",
    "your-secret-key",
    "django-secret-key",
    "chartroom",
    "chartroom-demo",
}
MIN_SECRET_KEY_LENGTH = 50  # Django's own deploy check asks for this much
MIN_UNIQUE_CHARACTERS = 5


def weak_secret_key_reason(key: str) -> str | None:
    """Why `key` is unfit for production, or None when it is fine."""
    if key.lower() in KNOWN_WEAK_SECRET_KEYS:
        return "it is a well-known example value"
    if key.startswith("django-insecure-"):
        return "it is the development key Django's startproject writes"
    if len(key) < MIN_SECRET_KEY_LENGTH:
        return f"it has {len(key)} characters; use at least {MIN_SECRET_KEY_LENGTH}"
    if len(set(key)) < MIN_UNIQUE_CHARACTERS:
        return "it repeats too few characters to be random"
    return None
