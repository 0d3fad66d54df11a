"""The runner's progress bar and request building, without a server or a database."""

import base64
import io

import pytest

from analysis.tables import natural_key
from studies.services.model_runner.progress import ProgressBar, format_duration
from studies.services.model_runner.run import (
    chat_payload,
    image_data_url,
    payload_hash,
)
from studies.tests.factories import png_bytes


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


@pytest.mark.parametrize(
    "seconds, text", [(0, "0s"), (44.6, "45s"), (80, "1m20s"), (3599, "59m59s"), (7500, "2h05m")]
)
def test_durations_read_like_a_clock(seconds, text):
    assert format_duration(seconds) == text


def test_the_bar_shows_count_retries_and_an_eta_from_this_runs_pace():
    clock, out = Clock(), io.StringIO()
    bar = ProgressBar(112, done=12, stream=out, width=10, clock=clock, interactive=False)
    assert bar.line() == "[#         ] 12/112 charts, 0 retries, eta --"
    clock.now = 11.0
    for _ in range(11):
        bar.advance()
    bar.retry()
    bar.retry()
    # 11 charts in 11 s since the start (the 12 done before do not count): 1 s each, 89 left.
    assert bar.line() == "[##        ] 23/112 charts, 2 retries, eta 1m29s"
    bar.fail()
    assert bar.line().endswith("2 retries, 1 failed, eta 1m29s")
    # Not a terminal: one line per chart finished, nothing for a retry.
    assert out.getvalue().count("\n") == 11
    assert "\r" not in out.getvalue()


def test_on_a_terminal_the_bar_redraws_one_line():
    out = io.StringIO()
    bar = ProgressBar(3, stream=out, width=3, clock=Clock(), interactive=True)
    bar.draw()
    bar.advance()
    bar.advance()
    bar.advance()
    bar.close()
    text = out.getvalue()
    assert text.count("\r") == 4 and text.endswith("[###] 3/3 charts, 0 retries, eta 0s\n")
    assert text.count("\n") == 1


def test_requests_hold_the_prompt_and_the_image_and_hash_stably():
    url = image_data_url(png_bytes())
    assert url.startswith("data:image/png;base64,")
    assert base64.b64decode(url.split(",", 1)[1]) == png_bytes()
    assert image_data_url(b"\xff\xd8\xff\xe0rest").startswith("data:image/jpeg;")
    assert image_data_url(b"RIFF\x00\x00\x00\x00WEBPVP8 ").startswith("data:image/webp;")
    payload = chat_payload(model="m", prompt="Which year?", image_url=url)
    (message,) = payload["messages"]
    assert [p["type"] for p in message["content"]] == ["text", "image_url"]
    assert "temperature" not in payload
    same = chat_payload(model="m", prompt="Which year?", image_url=url)
    assert payload_hash(payload) == payload_hash(same)
    for other in (
        chat_payload(model="m2", prompt="Which year?", image_url=url),
        chat_payload(model="m", prompt="Which year? ", image_url=url),
        chat_payload(model="m", prompt="Which year?", image_url=url, temperature=0),
    ):
        assert payload_hash(other) != payload_hash(payload)


def test_charts_go_in_natural_id_order():
    ids = ["G10_Q1_1", "G2_Q1_2", "G2_Q1_1", "G1_Q10_1", "G1_Q2_1"]
    assert sorted(ids, key=natural_key) == [
        "G1_Q2_1",
        "G1_Q10_1",
        "G2_Q1_1",
        "G2_Q1_2",
        "G10_Q1_1",
    ]
