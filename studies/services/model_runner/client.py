"""A small client for OpenAI-compatible chat-completions endpoints.

Standard library only (``urllib.request``), no Django: a rate limiter, retries
with exponential backoff and jitter, and errors that say what to fix. Time,
sleeping and randomness are injectable so tests run without waiting.

Which failures are retried
    429, 408 and 5xx replies, timeouts and dropped or refused connections are
    retried up to ``RetryPolicy.retries`` times. The wait before retry ``k``
    (1-based) is ``min(max_delay, base_delay * 2**(k-1))`` shortened by a random
    fraction up to ``jitter`` (so clients that failed together do not retry
    together), and never less than the server's ``Retry-After``.
What stops a run
    401/403 (the key), 404 (the URL or the model name), a redirect (a wrong
    base URL; following it would send the key elsewhere), a host name that does
    not resolve, and retries running out.
What fails one request only
    Any other 4xx (a prompt the endpoint refuses) and a 200 without a usable
    answer.

The API key travels only in the Authorization header. Every text that comes
back from the server passes through :func:`scrub`, because some endpoints echo
the key in their error messages.
"""

from __future__ import annotations

import email.utils
import json
import math
import random
import re
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from http.client import HTTPException

from core import json_input

CHAT_PATH = "/chat/completions"
RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529})
MAX_MESSAGE = 300


class EndpointError(Exception):
    """A request that did not give a reply; ``message`` is safe to show (key removed)."""

    fatal = False

    def __init__(self, message: str, *, attempts: int = 0, raw=None, status: int | None = None):
        super().__init__(message)
        self.message = message
        self.attempts = attempts
        self.raw = raw
        self.status = status


class FatalEndpointError(EndpointError):
    """Every further request would fail the same way: stop the run."""

    fatal = True


class AuthError(FatalEndpointError):
    pass


class NotFoundError(FatalEndpointError):
    pass


class BadBaseURL(FatalEndpointError):
    pass


class RetriesExhausted(FatalEndpointError):
    pass


class RequestRejected(EndpointError):
    """This request only was refused (another 4xx) or answered with nothing usable."""


# --------------------------------------------------------------------------- helpers


def scrub(value, secret: str | None):
    """``value`` (text or JSON-like data) with every occurrence of ``secret`` replaced by ``***``."""
    if not secret:
        return value
    if isinstance(value, str):
        return value.replace(secret, "***")
    if isinstance(value, dict):
        return {scrub(k, secret): scrub(v, secret) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [scrub(v, secret) for v in value]
    return value


def chat_completions_url(base_url: str) -> str:
    """The chat-completions URL for a base URL such as ``https://api.openai.com/v1``.

    A URL that already ends in ``/chat/completions`` is used as it is. Raises
    :class:`BadBaseURL` for anything that is not an http(s) URL with a host.
    """
    text = (base_url or "").strip()
    parts = urllib.parse.urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise BadBaseURL(
            "The base URL must start with http:// or https:// and name a host, "
            "e.g. https://api.openai.com/v1."
        )
    if parts.fragment:
        raise BadBaseURL("The base URL must not have a #fragment.")
    path = parts.path.rstrip("/")
    if not path.endswith(CHAT_PATH):
        path += CHAT_PATH
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


def endpoint_label(url: str) -> str:
    """Scheme, host, port and path of ``url``: what can be shown and stored without secrets."""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}{parts.path}"


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (seconds or an HTTP date); None if absent or bad."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        if when is None:
            return None
        seconds = when.timestamp() - (time.time() if now is None else now)
    if math.isnan(seconds) or math.isinf(seconds):
        return None
    return max(0.0, seconds)


def parse_rate(text: str) -> float:
    """Requests per minute from ``"60"``, ``"60/min"``, ``"2/s"`` or ``"1000/h"``."""
    match = re.fullmatch(
        r"\s*(\d+(?:\.\d+)?)\s*(?:/\s*(s|sec|second|m|min|minute|h|hr|hour))?\s*",
        str(text),
        re.IGNORECASE,
    )
    if not match:
        raise ValueError(f"{text!r} is not a rate; write e.g. 60/min, 2/s or 1000/h")
    count = float(match.group(1))
    unit = (match.group(2) or "min").lower()
    per_minute = count * {"s": 60, "h": 1 / 60}.get(unit[0], 1)
    if per_minute <= 0:
        raise ValueError("the rate must be above zero")
    return per_minute


def reply_text(body: dict) -> str:
    """The answer text of a chat-completions reply, or "" when it has none.

    ``content`` is a string, or (some servers) a list of parts of which the
    text parts are joined.
    """
    choices = body.get("choices") if isinstance(body, dict) else None
    if not choices or not isinstance(choices, list) or not isinstance(choices[0], dict):
        return ""
    message = choices[0].get("message") or {}
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return content.strip()
    if isinstance(content, list):
        texts = [
            p.get("text", "")
            for p in content
            if isinstance(p, dict) and isinstance(p.get("text"), str)
        ]
        return "\n".join(t for t in texts if t).strip()
    return ""


def _server_message(body: bytes) -> str:
    text = body.decode("utf-8", "replace").strip()
    try:
        data = json_input.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        error = data.get("error", data)
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            text = error["message"]
        elif isinstance(error, str):
            text = error
        elif isinstance(data.get("detail"), str):
            text = data["detail"]
    text = " ".join(text.split())
    return text[:MAX_MESSAGE] + ("..." if len(text) > MAX_MESSAGE else "")


def _raw_body(body: bytes):
    text = body.decode("utf-8", "replace")
    try:
        return json_input.loads(text)
    except ValueError:
        return {"text": text[:10_000]}


# --------------------------------------------------------------------------- rate and retries


class RateLimiter:
    """A token bucket: ``per_minute`` requests a minute on average, bursts up to ``burst``.

    With ``burst=1`` requests are simply spaced ``60 / per_minute`` seconds
    apart. ``clock`` and ``sleep`` are injectable for tests.
    """

    def __init__(
        self,
        per_minute: float,
        *,
        burst: int = 1,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ):
        if per_minute <= 0:
            raise ValueError("the rate must be above zero")
        self.interval = 60.0 / per_minute
        self.capacity = float(max(1, burst))
        self.tokens = self.capacity
        self.clock = clock
        self.sleep = sleep
        self.updated = clock()

    def _refill(self) -> None:
        now = self.clock()
        self.tokens = min(self.capacity, self.tokens + (now - self.updated) / self.interval)
        self.updated = now

    def acquire(self) -> float:
        """Wait until a request may be sent; returns the seconds waited."""
        waited = 0.0
        self._refill()
        # A loop, because a sleep may end early.
        while self.tokens < 1:
            delay = (1 - self.tokens) * self.interval
            self.sleep(delay)
            waited += delay
            self._refill()
        self.tokens -= 1
        return waited


@dataclass(frozen=True)
class RetryPolicy:
    retries: int = 5
    base_delay: float = 1.0
    max_delay: float = 60.0
    jitter: float = 0.5
    # A Retry-After longer than this is a server asking for a pause far longer
    # than a run should silently wait; waiting stops at this many seconds.
    max_retry_after: float = 600.0

    def delay(self, retry: int, retry_after: float | None, rng: random.Random) -> float:
        """Seconds to wait before retry number ``retry`` (1-based)."""
        backoff = min(self.max_delay, self.base_delay * 2 ** (retry - 1))
        backoff *= 1 - self.jitter * rng.random()
        if retry_after is not None:
            backoff = max(backoff, min(retry_after, self.max_retry_after))
        return backoff


@dataclass
class Reply:
    text: str
    raw: dict
    attempts: int
    elapsed: float


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    # urllib would follow a redirect of a POST as a GET and keep the
    # Authorization header, even to another host; stop instead.
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


@dataclass
class ChatClient:
    """Sends chat-completions requests to one endpoint with one key."""

    base_url: str
    api_key: str
    timeout: float = 120.0
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    limiter: RateLimiter | None = None
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic
    rng: random.Random = field(default_factory=random.Random)
    # Called before each retry with (retry number, seconds to wait, reason).
    on_retry: Callable[[int, float, str], None] | None = None
    user_agent: str = "chartroom-run-models"

    def __post_init__(self):
        self.url = chat_completions_url(self.base_url)
        self.endpoint = endpoint_label(self.url)
        self._opener = urllib.request.build_opener(_NoRedirect)

    def _safe(self, value):
        return scrub(value, self.api_key)

    def _request(self, payload: dict) -> urllib.request.Request:
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": self.user_agent,
        }
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        return urllib.request.Request(self.url, data=data, headers=headers, method="POST")

    def _send_once(self, payload: dict) -> tuple[int, bytes, object]:
        """(status, body, headers) of one attempt; raises the transient errors as _Transient."""
        try:
            with self._opener.open(self._request(payload), timeout=self.timeout) as response:
                return response.status, response.read(), response.headers
        except urllib.error.HTTPError as exc:
            try:
                body = exc.read()
            except (OSError, HTTPException):
                body = b""
            return exc.code, body, exc.headers
        except urllib.error.URLError as exc:
            reason = exc.reason
            if isinstance(reason, socket.gaierror):
                raise BadBaseURL(
                    f"Cannot find the host of {self.endpoint}; check --base-url."
                ) from None
            if isinstance(reason, TimeoutError):
                raise _Transient(f"no reply within {self.timeout:g} s") from None
            raise _Transient(
                f"cannot connect to {self.endpoint} ({self._safe(str(reason))})"
            ) from None
        except TimeoutError:
            raise _Transient(f"no reply within {self.timeout:g} s") from None
        except (HTTPException, OSError) as exc:
            raise _Transient(
                f"connection to {self.endpoint} failed ({type(exc).__name__})"
            ) from None

    def complete(self, payload: dict) -> Reply:
        """Send ``payload`` (a chat-completions request body) and return the reply.

        Raises an :class:`EndpointError`; see the module docstring for which.
        """
        started = self.clock()
        attempt = 0
        while True:
            attempt += 1
            if self.limiter is not None:
                self.limiter.acquire()
            retry_after = None
            try:
                status, body, headers = self._send_once(payload)
            except _Transient as exc:
                reason = exc.args[0]
            except EndpointError as exc:
                exc.attempts = attempt
                raise
            else:
                if 200 <= status < 300:
                    return self._reply(body, attempt, started)
                message = self._safe(_server_message(body))
                if status not in RETRY_STATUSES:
                    raise self._refusal(status, message, attempt, self._safe(_raw_body(body)))
                reason = f"HTTP {status}" + (f": {message}" if message else "")
                retry_after = parse_retry_after(headers.get("Retry-After") if headers else None)
            if attempt > self.retry.retries:
                raise RetriesExhausted(
                    f"Gave up after {attempt} attempt{'s' if attempt > 1 else ''}; "
                    f"the last one failed with {reason}.",
                    attempts=attempt,
                )
            delay = self.retry.delay(attempt, retry_after, self.rng)
            if self.on_retry is not None:
                self.on_retry(attempt, delay, reason)
            self.sleep(delay)

    def _reply(self, body: bytes, attempts: int, started: float) -> Reply:
        try:
            raw = json_input.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise RequestRejected(
                "The endpoint answered with something that is not JSON.",
                attempts=attempts,
                raw=self._safe({"text": body.decode("utf-8", "replace")[:10_000]}),
                status=200,
            ) from None
        raw = self._safe(raw)
        text = reply_text(raw)
        if not text:
            raise RequestRejected(
                "The reply has no answer text.", attempts=attempts, raw=raw, status=200
            )
        return Reply(text=text, raw=raw, attempts=attempts, elapsed=self.clock() - started)

    def _refusal(self, status: int, message: str, attempts: int, raw) -> EndpointError:
        said = f" The endpoint said: {message}" if message else ""
        kwargs = {"attempts": attempts, "raw": raw, "status": status}
        if status in (401, 403):
            return AuthError(f"The endpoint refused the API key (HTTP {status}).{said}", **kwargs)
        if status == 404:
            return NotFoundError(
                f"Not found (HTTP 404) at {self.endpoint}: check --base-url and --model.{said}",
                **kwargs,
            )
        if 300 <= status < 400:
            return BadBaseURL(
                f"The endpoint redirects (HTTP {status}); give the final URL as --base-url.",
                **kwargs,
            )
        return RequestRejected(f"The endpoint refused the request (HTTP {status}).{said}", **kwargs)


class _Transient(Exception):
    """A failure worth retrying; ``args[0]`` says what happened."""
