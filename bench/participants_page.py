"""A participant driving the shipped trial page with JavaScript on, request for request.

What Chromium does with templates/participate/trial.html and static/js/trial_flow.js
(static files are cached after the first page and left out):

- the study link, the consent form (302 to the session page), the instructions, Start
  (302), and the first trial's page with its chart;
- the chart after the shown one, fetched ahead after a random pause of PRELOAD_PAUSE_S
  while the participant answers (so the next trial's own chart is there when the reply
  comes, and nothing stands between the click and the next trial); when the answer comes
  before the pause is over, the fetch is called off and the chart loads as it is shown;
- per answer: one JSON POST whose reply carries the next trial;
- after the last answer, the session page (the debrief with the completion code).

``clock`` decides when each answer is given (think time, or the classroom's tick).
"""

from __future__ import annotations

import asyncio
import html
import random
import re
import time
from urllib.parse import urlsplit

TEMPLATE = "<template"

# static/js/trial_flow.js waits this long (uniform, seconds) before it fetches the next
# chart, so a class answering together does not also fetch together.
PRELOAD_PAUSE_S = (0.5, 2.5)
fetch_ahead_pause = (
    PRELOAD_PAUSE_S  # what this run uses (bench_participants.py --fetch-ahead-pause)
)


def seconds_range(text: str) -> tuple[float, float]:
    """ "0.5-2.5" as (0.5, 2.5); "0" as (0.0, 0.0)."""
    low, _, high = text.partition("-")
    return float(low), float(high or low)


def _attr(page: str, name: str) -> str:
    found = re.search(rf'{name}="([^"]*)"', page)
    return html.unescape(found[1]) if found else ""


def first_trial(page: str) -> dict:
    """The trial the server drew, as much of it as answering needs (like the JSON trial)."""
    own = page.split(TEMPLATE, 1)[0]
    position = re.search(r'name="position" value="(\d+)"', own)
    image = re.search(r'<img src="([^"]+)"', own)
    return {
        "position": int(position[1]),
        "answer_type": _attr(own, "data-answer-type"),
        "options": re.findall(r'name="choice" value="(\d+)"', own),
        "items": [
            {"text": html.unescape(t)}
            for t in re.findall(r'class="rank-text">([^<]*)</label>', own)
        ],
        "image_url": image[1] if image else None,
        "preload_image_url": _attr(own, "data-preload") or None,
        "answer_url": _attr(own, "data-answer-url"),
    }


def path_of(url: str | None) -> str | None:
    return urlsplit(url).path if url else None


async def get_image(http, url, stats) -> None:
    if not url:
        return
    t0 = time.perf_counter()
    status, _headers, _body = await http.raw("GET", path_of(url))
    stats["image"].append(time.perf_counter() - t0)
    if status != 200:
        stats["errors"].append(f"image {status} {url}")


class FetchAhead:
    """The chart after the current one, fetched as trial_flow.js does: after a random
    pause (``fetch_ahead_pause``), called off if the answer comes first."""

    def __init__(self, http, url: str | None, stats):
        self.url, self.started = url, False
        self.task = asyncio.create_task(self._run(http, stats)) if url else None

    async def _run(self, http, stats) -> None:
        await asyncio.sleep(random.uniform(*fetch_ahead_pause))
        self.started = True
        await get_image(http, self.url, stats)

    async def settle(self) -> str | None:
        """Before the answer: the URL fetched ahead, or None if it had not started."""
        if self.task is None:
            return None
        if self.started:
            await self.task
            return self.url
        self.task.cancel()
        return None


async def start(http, n: int, slug: str, stats) -> tuple[str, dict] | None:
    """Link, consent, instructions, Start: the session page's path and its first trial."""
    pid = f"page{n:05d}"
    t0 = time.perf_counter()
    await http.raw("GET", f"/s/{slug}/?PROLIFIC_PID={pid}&STUDY_ID=B")
    form = f"choice=agree&PROLIFIC_PID={pid}&STUDY_ID=B"
    status, headers, _ = await http.raw("POST", f"/s/{slug}/consent/", form=form)
    session = headers.get("location", "")
    if status != 302 or "/s/p/" not in session:
        stats["errors"].append(f"consent {status} {session}")
        return None
    session = path_of(session)
    await http.raw("GET", session)  # the instructions
    await http.raw("POST", f"{session}begin/", form="")
    status, _, body = await http.raw("GET", session)
    stats["start"].append(time.perf_counter() - t0)
    if status != 200:
        stats["errors"].append(f"first trial page {status}")
        return None
    trial = first_trial(body.decode())
    await get_image(http, trial["image_url"], stats)
    return session, trial


async def participant(http, n: int, slug: str, clock, answer, stats: dict) -> None:
    """One participant through the whole study, answering when ``clock`` says."""
    started = await start(http, n, slug, stats)
    if started is None:
        return
    session, trial = started
    answer_url = path_of(trial["answer_url"])
    step = 0
    ahead = FetchAhead(http, trial["preload_image_url"], stats)
    while True:
        await clock(step)
        step += 1
        fetched = await ahead.settle()
        body = {
            "position": trial["position"],
            "answer": answer(trial),
            "client_ms": 4000,
            "interactions": random.randint(1, 4),
            "first_interaction_ms": 1500,
            "idempotency_key": f"p{n}-{trial['position']}",
        }
        t0 = time.perf_counter()
        status, result = await http.request("POST", answer_url, body)
        stats["submit"].append(time.perf_counter() - t0)
        if status == 201:
            stats["stored_ok"] += 1
            stats["answered_at"].append(time.perf_counter())
        elif status == 200 and result.get("duplicate"):
            stats["duplicates"] += 1
        else:
            stats["errors"].append(f"submit {status} {result}")
            return
        following = result["next_trial"]
        if following is None:
            break
        trial = following
        if trial["image_url"] != fetched:  # answered before it was fetched ahead
            await get_image(http, trial["image_url"], stats)
        stats["click_to_next"].append(time.perf_counter() - t0)
        ahead = FetchAhead(http, trial["preload_image_url"], stats)
    status, _, page = await http.raw("GET", session)  # the debrief
    if status == 200 and b"BENCH" in page:
        stats["finished"] += 1
    else:
        stats["errors"].append(f"debrief {status}")
