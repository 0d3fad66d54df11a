"""Creating, using and revoking API tokens."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils import timezone

from core.db.compiled import CompiledQuery
from core.models import ApiToken, User

# Touching last_used_at on every request would turn each API read into a write;
# once a minute is enough to tell which keys are still in use.
LAST_USED_RESOLUTION_SECONDS = 60


@dataclass(frozen=True)
class IssuedToken:
    token: ApiToken
    key: str  # shown to the user once, never stored


def api_token_create(*, user: User, name: str) -> IssuedToken:
    key = ApiToken.generate_key()
    token = ApiToken.objects.create(
        user=user,
        name=name.strip() or "API token",
        prefix=key[: ApiToken.PREFIX_LENGTH],
        key_hash=ApiToken.hash_key(key),
    )
    return IssuedToken(token=token, key=key)


def api_token_revoke(*, user: User, token_id: int) -> bool:
    """Revoke one of the user's own tokens; False when there is no such active token."""
    updated = (
        ApiToken.objects.active().filter(user=user, pk=token_id).update(revoked_at=timezone.now())
    )
    return updated == 1


# Compiled once: read on every API request an annotator or a script makes (core/db/compiled.py).
_ACTIVE_BY_HASH = CompiledQuery(
    lambda key_hash: (
        ApiToken.objects.active()
        .select_related("user")
        .filter(key_hash=key_hash)
        .order_by("pk")[:1]
    ),
    key_hash="\x1fsample-hash",
)


def api_token_authenticate(*, key: str) -> ApiToken | None:
    found = _ACTIVE_BY_HASH(key_hash=ApiToken.hash_key(key))
    token = found[0] if found else None
    if token is None or not token.user.is_active:
        return None
    now = timezone.now()
    if (
        token.last_used_at is None
        or (now - token.last_used_at).total_seconds() > LAST_USED_RESOLUTION_SECONDS
    ):
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token
