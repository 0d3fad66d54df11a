"""The chat-completions client: retries and backoff, rate limiting, errors, key hygiene.

Runs against a real local HTTP server (fake_chat_server); sleeps are recorded,
not slept, except in the timeout test, which waits 0.3 s for real.
"""

import base64
import random
import socket
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from studies.services.model_runner.client import (
    AuthError,
    BadBaseURL,
    ChatClient,
    NotFoundError,
    RateLimiter,
    RequestRejected,
    RetriesExhausted,
    RetryPolicy,
    chat_completions_url,
    endpoint_label,
    parse_rate,
    parse_retry_after,
    reply_text,
    scrub,
)
from studies.tests.factories import png_bytes
from studies.tests.fake_chat_server import FakeChatServer

KEY = "sk-test-0123456789abcdef"


def payload(text="Which year had more? 1. 2018 2. 2019"):
    image = base64.b64encode(png_bytes()).decode()
    return {
        "model": "vision-1",
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": text},
                    {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{image}"}},
                ],
            }
        ],
    }


class Sleeps(list):
    """Records the waits instead of waiting."""

    def __call__(self, seconds):
        self.append(seconds)


@pytest.fixture
def server():
    s = FakeChatServer(key=KEY)
    yield s
    s.stop()


def client_for(server, **kwargs):
    kwargs.setdefault("sleep", Sleeps())
    kwargs.setdefault("rng", random.Random(4))
    kwargs.setdefault("retry", RetryPolicy(retries=3, base_delay=0.5, max_delay=4))
    return ChatClient(base_url=server.base_url, api_key=KEY, **kwargs)


# --------------------------------------------------------------------------- success and retries


def test_it_sends_the_key_the_prompt_and_the_image_and_returns_the_answer(server):
    client = client_for(server)
    reply = client.complete(payload())
    assert reply.text == "2019"
    assert reply.attempts == 1
    assert reply.raw["choices"][0]["message"]["content"] == "2019"
    (hit,) = server.hits
    assert hit.path == "/v1/chat/completions"
    assert hit.authorization == f"Bearer {KEY}"
    assert hit.payload["model"] == "vision-1"


def test_it_retries_429_and_500_waiting_at_least_the_retry_after(server):
    server.script = [("status", 429, {"Retry-After": "7"}), ("status", 503), ("answer", "0.4")]
    retries = []
    client = client_for(server, on_retry=lambda n, delay, why: retries.append((n, why)))
    reply = client.complete(payload())
    assert reply.text == "0.4"
    assert reply.attempts == 3
    assert len(server.hits) == 3
    # Retry 1: the backoff (0.5 s at most) is shorter than Retry-After, so 7 s.
    # Retry 2: 0.5 * 2 = 1 s, shortened by jitter to no less than half.
    assert client.sleep[0] == 7
    assert 0.5 <= client.sleep[1] <= 1.0
    assert [n for n, _ in retries] == [1, 2]
    assert "HTTP 429" in retries[0][1] and "HTTP 503" in retries[1][1]


def test_backoff_doubles_up_to_the_cap_and_jitter_only_shortens_it():
    policy = RetryPolicy(base_delay=1, max_delay=5, jitter=0)
    rng = random.Random(0)
    assert [policy.delay(k, None, rng) for k in (1, 2, 3, 4, 5)] == [1, 2, 4, 5, 5]
    jittered = RetryPolicy(base_delay=1, max_delay=100, jitter=0.5)
    for k in range(1, 7):
        full = 2 ** (k - 1)
        delays = {jittered.delay(k, None, rng) for _ in range(50)}
        assert all(full / 2 <= d <= full for d in delays)
        assert len(delays) > 1  # the jitter varies
    # Retry-After wins when longer, is capped when absurd.
    assert policy.delay(1, 30, rng) == 30
    assert RetryPolicy(max_retry_after=60).delay(1, 3600, rng) == 60


def test_it_gives_up_after_the_retries_with_the_last_reason(server):
    server.script = [("status", 500)] * 5
    client = client_for(server, retry=RetryPolicy(retries=2, base_delay=0.01))
    with pytest.raises(RetriesExhausted, match="Gave up after 3 attempts.*HTTP 500") as caught:
        client.complete(payload())
    assert caught.value.attempts == 3
    assert len(server.hits) == 3
    assert len(client.sleep) == 2


def test_a_request_that_times_out_is_retried(server):
    server.script = [("hang",), ("answer", "2018")]
    client = client_for(server, timeout=0.3)
    reply = client.complete(payload())
    assert reply.text == "2018"
    assert reply.attempts == 2
    assert len(server.hits) == 2


def test_a_timeout_without_retries_left_says_so(server):
    server.script = [("hang",)]
    client = client_for(server, timeout=0.2, retry=RetryPolicy(retries=0))
    with pytest.raises(RetriesExhausted, match=r"after 1 attempt;.*no reply within 0.2 s"):
        client.complete(payload())


def test_a_refused_connection_is_retried_then_reported():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    client = ChatClient(
        base_url=f"http://127.0.0.1:{port}/v1",
        api_key=KEY,
        sleep=Sleeps(),
        retry=RetryPolicy(retries=2, base_delay=0.01),
    )
    with pytest.raises(RetriesExhausted, match="cannot connect to http://127.0.0.1"):
        client.complete(payload())
    assert len(client.sleep) == 2


# --------------------------------------------------------------------------- errors that stop a run


def test_a_wrong_key_is_fatal_not_retried_and_never_repeated(server):
    client = ChatClient(base_url=server.base_url, api_key="sk-wrong-secret", sleep=Sleeps())
    with pytest.raises(AuthError) as caught:
        client.complete(payload())
    assert caught.value.fatal
    assert "refused the API key (HTTP 401)" in caught.value.message
    # The server quoted the key back; the message and the raw body have it masked.
    assert "sk-wrong-secret" not in caught.value.message
    assert "Incorrect API key provided: ***" in caught.value.message
    assert "sk-wrong-secret" not in str(caught.value.raw)
    assert len(server.hits) == 1
    assert client.sleep == []


def test_a_wrong_path_is_a_404_naming_the_endpoint(server):
    client = ChatClient(base_url=server.base_url.replace("/v1", "/v2"), api_key=KEY)
    with pytest.raises(NotFoundError, match=r"HTTP 404.*v2/chat/completions.*--base-url"):
        client.complete(payload())


def test_a_redirect_is_not_followed(server):
    other = FakeChatServer(key=KEY)
    try:
        server.script = [("status", 302, {"Location": other.base_url + "/chat/completions"}, {})]
        client = client_for(server)
        with pytest.raises(BadBaseURL, match="redirects"):
            client.complete(payload())
        assert other.hits == []
    finally:
        other.stop()


def test_another_4xx_fails_this_request_only(server):
    server.script = [("status", 400, {}, {"error": {"message": "image too large"}})]
    client = client_for(server)
    with pytest.raises(RequestRejected, match="HTTP 400.*image too large") as caught:
        client.complete(payload())
    assert not caught.value.fatal
    assert caught.value.attempts == 1


def test_a_reply_without_answer_text_is_refused(server):
    server.script = [("answer", "   ")]
    with pytest.raises(RequestRejected, match="no answer text"):
        client_for(server).complete(payload())


@pytest.mark.parametrize(
    "base, url",
    [
        ("https://api.openai.com/v1", "https://api.openai.com/v1/chat/completions"),
        ("https://api.openai.com/v1/", "https://api.openai.com/v1/chat/completions"),
        ("http://localhost:8000/v1/chat/completions", "http://localhost:8000/v1/chat/completions"),
        (
            "https://h.example/openai?api-version=2",
            "https://h.example/openai/chat/completions?api-version=2",
        ),
    ],
)
def test_the_chat_completions_url_is_built_from_the_base_url(base, url):
    assert chat_completions_url(base) == url


@pytest.mark.parametrize("base", ["", "localhost:8000/v1", "ftp://h.example/v1", "https:///v1"])
def test_a_base_url_that_is_not_http_is_refused(base):
    with pytest.raises(BadBaseURL, match="must start with http"):
        ChatClient(base_url=base, api_key=KEY)


def test_the_endpoint_label_drops_credentials_and_query():
    label = endpoint_label("https://user:pw@h.example:8443/v1/chat/completions?key=abc")
    assert label == "https://h.example:8443/v1/chat/completions"


def test_scrub_masks_the_key_everywhere():
    data = {"a": [f"x {KEY} y", {"k": KEY}], KEY: 1, "n": 2}
    assert scrub(data, KEY) == {"a": ["x *** y", {"k": "***"}], "***": 1, "n": 2}


def test_reply_text_reads_string_and_part_list_contents():
    assert reply_text({"choices": [{"message": {"content": " 0.3 "}}]}) == "0.3"
    parts = [{"type": "text", "text": "0.3"}, {"type": "text", "text": "because"}]
    assert reply_text({"choices": [{"message": {"content": parts}}]}) == "0.3\nbecause"
    assert reply_text({"choices": []}) == ""
    assert reply_text({"error": "x"}) == ""


# --------------------------------------------------------------------------- rate limiting


class FakeClock:
    def __init__(self):
        self.now = 0.0
        self.sleeps = []

    def __call__(self):
        return self.now

    def sleep(self, seconds):
        self.sleeps.append(seconds)
        self.now += seconds


def test_the_rate_limiter_spaces_requests_evenly():
    clock = FakeClock()
    limiter = RateLimiter(30, clock=clock, sleep=clock.sleep)  # one every 2 s
    times = []
    for _ in range(5):
        limiter.acquire()
        times.append(clock.now)
    assert times == [0, 2, 4, 6, 8]


def test_the_rate_limiter_does_not_wait_when_requests_are_slower_than_the_rate():
    clock = FakeClock()
    limiter = RateLimiter(60, clock=clock, sleep=clock.sleep)  # one a second
    limiter.acquire()
    clock.now += 2.5  # a slow reply
    assert limiter.acquire() == 0
    clock.now += 0.25
    assert limiter.acquire() == pytest.approx(0.75)
    assert clock.now == pytest.approx(3.5)


def test_the_rate_limiter_allows_a_burst_then_keeps_the_rate():
    clock = FakeClock()
    limiter = RateLimiter(60, burst=3, clock=clock, sleep=clock.sleep)
    times = []
    for _ in range(6):
        limiter.acquire()
        times.append(clock.now)
    assert times == pytest.approx([0, 0, 0, 1, 2, 3])


def test_the_client_takes_a_token_for_every_attempt_including_retries(server):
    server.script = [("status", 500), ("status", 500)]
    clock = FakeClock()
    limiter = RateLimiter(6, clock=clock, sleep=clock.sleep)  # one every 10 s
    client = client_for(server, limiter=limiter, retry=RetryPolicy(retries=3, base_delay=0.001))
    client.complete(payload())
    # Three attempts: the first is free, the next two wait out the 10 s spacing
    # (the backoff sleeps are recorded separately and take no fake time).
    assert clock.sleeps == pytest.approx([10, 10])


@pytest.mark.parametrize(
    "text, per_minute",
    [("60", 60), ("60/min", 60), ("2/s", 120), ("1000/h", 1000 / 60), (" 0.5 / minute ", 0.5)],
)
def test_rates_are_read_per_minute(text, per_minute):
    assert parse_rate(text) == pytest.approx(per_minute)


@pytest.mark.parametrize("text", ["fast", "0/min", "-1/s", "10/day"])
def test_a_bad_rate_is_refused(text):
    with pytest.raises(ValueError):
        parse_rate(text)


def test_retry_after_reads_seconds_and_http_dates():
    assert parse_retry_after("7") == 7
    assert parse_retry_after(" 1.5 ") == 1.5
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    now = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
    later = format_datetime(now + timedelta(seconds=30), usegmt=True)
    assert parse_retry_after(later, now=now.timestamp()) == 30
    earlier = format_datetime(now - timedelta(seconds=30), usegmt=True)
    assert parse_retry_after(earlier, now=now.timestamp()) == 0
