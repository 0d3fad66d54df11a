"""Account protection shared by the login throttle (django-axes), the sign-up limit and
the production start-up check."""

from __future__ import annotations

import ipaddress
import logging
import math
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import ImproperlyConfigured
from django.db import DatabaseError
from django.utils.translation import ngettext

logger = logging.getLogger(__name__)


def client_ip(request) -> str | None:
    """The address a request came from, as one home for axes and the sign-up limit.

    Behind a TLS-terminating proxy (SECURE_PROXY_SSL_HEADER set) every request comes from
    the proxy, which appends the real client to X-Forwarded-For: the right-most entry is
    the one the proxy wrote, the others are whatever the client sent and can be forged.
    None when there is no usable address (axes then records none).
    """
    if settings.SECURE_PROXY_SSL_HEADER:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
        parts = [part.strip() for part in forwarded.split(",") if part.strip()]
        if parts and _is_ip(parts[-1]):
            return parts[-1]
    address = request.META.get("REMOTE_ADDR") or ""
    return address if _is_ip(address) else None


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class Throttled:
    retry_after: int  # seconds

    @property
    def wait(self) -> str:
        """How long to wait, in words of the active language ("3 Minuten")."""
        minutes = max(1, math.ceil(self.retry_after / 60))
        return ngettext("%(count)d minute", "%(count)d minutes", minutes) % {"count": minutes}


def rate_limit_hit(*, scope: str, key: str, limit: int, window_seconds: int) -> Throttled | None:
    """Count one attempt in a fixed window; the attempt beyond `limit` is Throttled.

    Kept in Django's cache (Redis when CACHE_URL is set, so every web process shares the
    count; each process's memory otherwise). `add` then `incr` are atomic on both.
    """
    window = int(time.time() // window_seconds)
    cache_key = f"ratelimit:{scope}:{key}:{window}"
    cache.add(cache_key, 0, timeout=window_seconds + 5)
    try:
        count = cache.incr(cache_key)
    except ValueError:  # expired between add and incr: this is the window's first attempt
        cache.set(cache_key, 1, timeout=window_seconds + 5)
        count = 1
    if count > limit:
        return Throttled(retry_after=int(window_seconds - time.time() % window_seconds) + 1)
    return None


def demo_accounts_with_demo_password() -> list[str]:
    """Usernames of demo accounts that still sign in with the published demo password."""
    from core.demo_accounts import DEMO_PASSWORD, DEMO_USERNAMES
    from core.models import User

    users = User.objects.filter(username__in=DEMO_USERNAMES, is_active=True)
    return sorted(user.username for user in users if user.check_password(DEMO_PASSWORD))


def refuse_demo_passwords_in_production() -> None:
    """Called when the web server starts: DJANGO_DEBUG=0 with a published password is refused."""
    if settings.DEBUG:
        return
    try:
        in_use = demo_accounts_with_demo_password()
    except DatabaseError as exc:
        # Not migrated yet, or the database is briefly away: starting lets the health
        # check and the 503 pages say so, rather than a web server that will not boot.
        logger.warning("Could not check the demo accounts' passwords at start-up: %s", exc)
        return
    if in_use:
        raise ImproperlyConfigured(
            "DJANGO_DEBUG=0 refuses to start while demo accounts use the published demo "
            f"password: {', '.join(in_use)}. Give each a new password "
            "(manage.py changepassword NAME) or deactivate it."
        )


def sign_up_throttled(request) -> Throttled | None:
    """Count a sign-up attempt from this request's address; Throttled past the limit.

    django-axes only sees failed logins. A sign-up creates an account (and says whether a
    username is taken), so attempts are limited per address with a counter in the cache.
    """
    return rate_limit_hit(
        scope="sign-up",
        key=client_ip(request) or "unknown",
        limit=settings.CHARTROOM_SIGNUP_LIMIT,
        window_seconds=settings.CHARTROOM_SIGNUP_WINDOW_SECONDS,
    )


def arrivals_throttled(request, study_id: int) -> Throttled | None:
    """Count a consent or decline from this request's address into one study.

    Starting a session takes no account, so a script could fill a paid study overnight
    with sessions nobody takes (each counts towards its target and its counterbalancing)
    or with declines. A class in one lab shares one address, so the limit is generous
    (CHARTROOM_ARRIVALS_LIMIT per window) and per study; a platform's own ids and the
    researcher's release and exclusion tools do the rest.
    """
    address = client_ip(request)
    ip = ipaddress.ip_address(address) if address else None
    if ip is None or not ip.is_global:
        # This machine, a private network or a container's: most likely a proxy in front
        # that does not pass the client's address on (SECURE_PROXY_SSL_HEADER unset), which
        # would count every participant as one, or a load test. Nothing to tell
        # participants apart by, so nothing is counted.
        return None
    # One IPv6 host holds a whole /64; counting single addresses would let it rotate.
    key = str(ipaddress.ip_network(f"{ip}/64", strict=False)) if ip.version == 6 else str(ip)
    return rate_limit_hit(
        scope=f"arrivals:{study_id}",
        key=key,
        limit=settings.CHARTROOM_ARRIVALS_LIMIT,
        window_seconds=settings.CHARTROOM_ARRIVALS_WINDOW_SECONDS,
    )
