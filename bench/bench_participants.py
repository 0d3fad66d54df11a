"""Load benchmark: many simulated participants take a study at once, over HTTP.

Starts the web server (Granian as the Procfile runs it, or ``--server gunicorn``) on
127.0.0.1 against the PostgreSQL database in DATABASE_URL,
creates a live study (generated chart pairs + two attention checks), then lets
N simulated participants each start a session through the JSON flow, answer
every trial (after a think time) and finish. As a custom front end would, each
fetches the first trial and then gets every next one with the receipt of the
previous answer: one request per trial. Prints throughput, submit latency
percentiles and the number of answers stored vs submitted, which must be equal.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/chartroom \\
        .venv/bin/python bench/bench_participants.py --participants 200

``--mode page`` drives the shipped trial page with JavaScript on instead, request for
request (bench/participants_page.py: link, consent, instructions, the first trial's page
and chart, then per answer the JSON POST, and the next chart fetched ahead after the
page's pause, ``--fetch-ahead-pause``). ``--lockstep-s 10``
is a classroom: everyone answers together every 10 s. ``--think-ms 10000`` is a think
time uniform in 5-15 s. Each run prints answers/s (over the whole run, and over the middle
80% of the answers: the steady state without the arrivals and the last sessions' tail),
answer latency p50/p95/p99, server and PostgreSQL CPU per answer and stored == submitted.

Needs PostgreSQL: SQLite serializes every write and is not what this measures.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import os
import random
import secrets
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import participants_page  # noqa: E402
from bench.classroom_bursts import BurstMeter  # noqa: E402
from bench.http_client import Http  # noqa: E402
from bench.participants_report import print_report  # noqa: E402
from bench.participants_server import (  # noqa: E402 - needs ROOT on the path when run as a script
    LOG_PATH,
    PostgresCpu,
    answer_times_in_server,
    collect_static,
    free_port,
    process_group_cpu,
    start_server,
    stop,
)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--participants", type=int, default=200, help="participants (200)")
    parser.add_argument("--pairs", type=int, default=28, help="chart pairs in the study (28)")
    parser.add_argument("--server", choices=("granian", "gunicorn"), default="granian",
                        help="granian as the Procfile runs it, or gunicorn (granian)")  # fmt: skip
    parser.add_argument("--workers", type=int, default=2, help="web server processes (default 2)")
    parser.add_argument("--threads", type=int, default=2, help="threads per process (default 2)")
    parser.add_argument("--think-ms", type=float, default=2000,
                        help="mean pause before each answer, uniform in [0.5x, 1.5x] (default "
                        "2000, several times faster than people read a chart and answer; 0 = "
                        "none)")  # fmt: skip
    parser.add_argument(
        "--ramp-s",
        type=float,
        default=None,
        help="spread arrivals over this many seconds (default 1 in a closed loop, 5 otherwise)",
    )
    parser.add_argument(
        "--mode",
        choices=("json", "page"),
        default="json",
        help="json: a custom front end on the JSON flow; page: the shipped trial page with "
        "JavaScript, request for request (default json)",
    )
    parser.add_argument(
        "--lockstep-s",
        type=float,
        default=0,
        help="a classroom: every participant answers at the same tick, every this many "
        "seconds (replaces --think-ms; default 0 = off)",
    )
    parser.add_argument(
        "--worker-class",
        choices=("gthread", "sync"),
        default="gthread",
        help="gunicorn's worker class (default gthread: keep-alive connections; sync: one "
        "connection at a time, closed after each response)",
    )
    parser.add_argument(
        "--fast-commit",
        action="store_true",
        help="turn on the study's fast answer commit (synchronous_commit off for answers)",
    )
    parser.add_argument(
        "--fetch-ahead-pause",
        type=participants_page.seconds_range,
        default=participants_page.PRELOAD_PAUSE_S,
        help="page mode: seconds the page waits before it fetches the next chart, a range "
        "such as 0.5-2.5 as static/js/trial_flow.js does (0 = at once, as it did before)",
    )
    parser.add_argument("--server-times", action="store_true",
                        help="also print each answer's time inside the web server, from its "
                        "access log (which costs the server a little CPU)")  # fmt: skip
    parser.add_argument("--keep", action="store_true", help="keep the benchmark study afterwards")
    args = parser.parse_args(argv)
    participants_page.fetch_ahead_pause = args.fetch_ahead_pause
    if args.ramp_s is None:
        args.ramp_s = 1.0 if not (args.think_ms or args.lockstep_s) else 5.0
    return args


# ----------------------------------------------------------------------------- set-up


def setup_django():
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


def png(color) -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (160, 100), color).save(buffer, format="PNG")
    return buffer.getvalue()


def create_study(pairs: int, *, fast_commit: bool = False):
    """A live study over a fresh chart set; returns (study, answer key per (kind, id))."""
    from django.core.files.base import ContentFile

    from core.models import User
    from studies.models import (
        AnswerType,
        AttentionCheck,
        Chart,
        ChartGroup,
        ChartSet,
        ManipulationType,
        Question,
        Study,
        StudyPair,
    )

    tag = secrets.token_hex(4)
    owner, _ = User.objects.get_or_create(
        username="bench-researcher", defaults={"role": "researcher"}
    )
    manipulation, _ = ManipulationType.objects.get_or_create(
        slug="bench-manipulation", defaults={"label": "Bench"}
    )
    chart_set = ChartSet.objects.create(title=f"Bench {tag}", slug=f"bench-{tag}", owner=owner)
    group = ChartGroup.objects.create(
        chart_set=chart_set, code="G1", chart_type="bar", manipulation=manipulation
    )
    kinds = [
        (
            AnswerType.MULTIPLE_CHOICE,
            "Which year was higher? 1. 2018 2. 2019",
            ["2018", "2019"],
            "2",
        ),
        (AnswerType.FREE_TEXT, "How many million bags in 2019?", [], "1.2"),
        (AnswerType.RANKING, "Sort from largest to smallest.", ["A", "B", "C"], "A > B > C"),
    ]
    images = [png((40, 90, 200)), png((200, 90, 40))]
    for i in range(pairs):
        answer_type, text, options, key = kinds[i % 3]
        question = Question.objects.create(
            chart_set=chart_set, group=group, code=f"G1_Q{i + 1}", text=text,
            answer_type=answer_type, options=options, answer_key=key,
        )  # fmt: skip
        for version in (1, 2):
            chart = Chart(
                question=question, version=version, chart_id=f"G1_Q{i + 1}_{version}",
                manipulation=manipulation, width=160, height=100,
            )  # fmt: skip
            chart.image.save(
                f"bench-{tag}-{i}-{version}.png", ContentFile(images[version - 1]), save=False
            )
            chart.width, chart.height = 160, 100
            chart.save()
    study = Study.objects.create(
        title=f"Bench study {tag}", slug=f"bench-study-{tag}", owner=owner, chart_set=chart_set,
        status=Study.Status.LIVE, platform="prolific", consent_text="ok", instructions_text="ok",
        completion_code="BENCH", time_limit_minutes=120, fast_answer_commit=fast_commit,
    )  # fmt: skip
    for i, question in enumerate(chart_set.questions.order_by("id")):
        StudyPair.objects.create(study=study, question=question, position=i)
    AttentionCheck.objects.create(
        study=study, kind="instructed", prompt="Select 'Agree'.",
        answer_type=AnswerType.MULTIPLE_CHOICE, options=["Disagree", "Agree"], answer_key="Agree",
    )  # fmt: skip
    AttentionCheck.objects.create(
        study=study, kind="instructed", prompt="Type ten as a number.",
        answer_type=AnswerType.FREE_TEXT, answer_key="10",
    )  # fmt: skip
    return study


def answer(trial: dict):
    """A plausible (sometimes wrong) answer for a trial as the JSON flow returns it."""
    kind = trial["answer_type"]
    if kind == "multiple_choice":
        return random.randrange(len(trial["options"]))
    if kind == "ranking":
        items = [item["text"] for item in trial["items"]]
        random.shuffle(items)
        return items
    return random.choice(["1.2", "10", "1.3", "2"])


def delete_study(study):
    from studies.models import ChartSet, ParticipantSession

    chart_set_id = study.chart_set_id
    ParticipantSession.objects.filter(study=study).delete()
    study.delete()
    ChartSet.objects.filter(pk=chart_set_id).delete()


# ----------------------------------------------------------------------------- client


async def participant(n: int, http, slug: str, clock, stats: dict):
    """A custom front end on the JSON flow: one request per answer."""
    t0 = time.perf_counter()
    status, state = await http.request(
        "POST",
        f"/api/v1/participate/studies/{slug}/sessions/",
        {"consent": True, "params": {"PROLIFIC_PID": f"bench{n:05d}", "STUDY_ID": "B"}},
    )
    stats["start"].append(time.perf_counter() - t0)
    if status != 201:
        stats["errors"].append(f"start {status} {state}")
        return
    token = state["token"]
    base = f"/api/v1/participate/sessions/{token}"
    # The first trial is fetched; every later one comes with the previous answer's receipt.
    t0 = time.perf_counter()
    status, trial = await http.request("GET", f"{base}/trial/")
    stats["trial"].append(time.perf_counter() - t0)
    if status != 200:
        stats["errors"].append(f"trial {status} {trial}")
        return
    step = 0
    while True:
        await clock(step)
        step += 1
        body = {
            "position": trial["position"],
            "answer": answer(trial),
            "client_ms": 4000,
            "interactions": 3,
            "first_interaction_ms": 1500,
            "idempotency_key": f"{n}-{trial['position']}",
        }
        t0 = time.perf_counter()
        status, result = await http.request("POST", f"{base}/responses/", body)
        stats["submit"].append(time.perf_counter() - t0)
        if status == 201:
            stats["stored_ok"] += 1
            stats["answered_at"].append(time.perf_counter())
            trial = result["next_trial"]
            if trial is None:
                break
        elif status == 200 and result.get("duplicate"):
            stats["duplicates"] += 1
        else:
            stats["errors"].append(f"submit {status} {result}")
            return
    status, done = await http.request("POST", f"{base}/finish/")
    if status == 200 and done.get("code") == "BENCH":
        stats["finished"] += 1
    else:
        stats["errors"].append(f"finish {status} {done}")


def first_tick(args, begin: float) -> float:
    # The first tick leaves time for everyone to arrive and open their first trial.
    return begin + args.ramp_s + max(args.lockstep_s, 2.0)


def make_clock(args, begin: float):
    """When a participant's next answer goes: after a think time, or at the class's tick."""
    loop = asyncio.get_running_loop()
    if args.lockstep_s:
        first = first_tick(args, begin)

        async def tick(step: int) -> None:
            await asyncio.sleep(max(0.0, first + step * args.lockstep_s - loop.time()))

        return tick

    async def think(step: int) -> None:
        if args.think_ms:
            await asyncio.sleep(random.uniform(0.5, 1.5) * args.think_ms / 1000)

    return think


async def one_participant(n: int, args, port: int, slug: str, clock, stats: dict):
    await asyncio.sleep(args.ramp_s * n / max(args.participants, 1))
    http = Http(port)
    try:
        if args.mode == "page":
            await participants_page.participant(http, n, slug, clock, answer, stats)
        else:
            await participant(n, http, slug, clock, stats)
    finally:
        await http.close()


async def warm_up(port: int, slug: str, n: int) -> None:
    """Touch every view in every worker first: each process imports and compiles on its first requests."""

    async def one(_):
        http = Http(port)
        try:
            for _ in range(3):
                await http.request("GET", f"/api/v1/participate/studies/{slug}/")
                await http.request("GET", "/api/v1/participate/sessions/warm-up-token/trial/")
                await http.raw("GET", "/s/p/warm-up-token-of-no-session/")
                await http.request(
                    "POST",
                    "/api/v1/participate/sessions/warm-up-token/responses/",
                    {"position": 0, "answer": "1"},
                )
        finally:
            await http.close()

    await asyncio.gather(*(one(i) for i in range(n)))


def new_stats() -> dict:
    """What the simulated participants of one server record, empty."""
    return {
        "start": [],
        "trial": [],
        "submit": [],
        "image": [],
        "click_to_next": [],  # page mode: the answer's reply and the next chart, if not there
        "errors": [],
        "requests": 0,
        "stored_ok": 0,
        "duplicates": 0,
        "finished": 0,
        "answered_at": [],  # when each stored answer's reply came back
    }


def answers_stored(study) -> int:
    from studies.models import Response

    return Response.objects.filter(session__study=study).count()


async def run_participants(args, port: int, slug: str, server_pid: int) -> tuple[dict, float]:
    await warm_up(port, slug, 4 * args.workers * args.threads)
    stats = new_stats()
    # The warm-up's CPU is not the participants'.
    stats["cpu_before"] = process_group_cpu(server_pid)
    postgres = stats["postgres"] = PostgresCpu()
    watching = asyncio.create_task(postgres.watch())
    started = time.perf_counter()
    begin = asyncio.get_running_loop().time()
    clock = make_clock(args, begin)
    meter = None
    if args.lockstep_s:
        meter = BurstMeter(server_pid, postgres, args.participants, stats["answered_at"])
        trials = 2 * args.pairs + 2
        bursts = asyncio.create_task(meter.run(first_tick(args, begin), args.lockstep_s, trials))
    await asyncio.gather(
        *(one_participant(n, args, port, slug, clock, stats) for n in range(args.participants))
    )
    if meter is not None:
        await bursts
        stats["bursts"] = meter.report_lines()
    watching.cancel()
    # Page mode: link, consent, instructions, begin and the first page per session.
    stats["requests"] = (5 if args.mode == "page" else 1) * len(stats["start"])
    return stats, time.perf_counter() - started


def main(argv=None) -> int:
    args = parse_args(argv)
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        print(
            "bench_participants needs PostgreSQL: set DATABASE_URL=postgres://USER@HOST:5432/DBNAME "
            "(SQLite serializes every write and is not what this measures).",
            file=sys.stderr,
        )
        return 2
    # Chart images of the benchmark go to a throw-away folder, never the real media.
    media = tempfile.TemporaryDirectory(prefix="chartroom-bench-")
    os.environ["MEDIA_ROOT"] = media.name
    setup_django()
    from studies.models import ParticipantSession

    study = create_study(args.pairs, fast_commit=args.fast_commit)
    if args.mode == "page":
        collect_static()
    port = free_port()
    server = start_server(port, args.workers, args.threads, args.worker_class, args.server,
                          access_log=args.server_times)  # fmt: skip
    load_before = os.getloadavg()[0]
    try:
        client_before = time.process_time()
        stats, wall = asyncio.run(run_participants(args, port, study.slug, server.pid))
        server_cpu = process_group_cpu(server.pid) - stats["cpu_before"]
        postgres_cpu = stats["postgres"].used()
        stats["postgres"].close()
        client_cpu = time.process_time() - client_before
    finally:
        stop(server)
    if args.server_times:
        stats["submit_in_server"] = answer_times_in_server(LOG_PATH)

    stored = answers_stored(study)
    completed = ParticipantSession.objects.filter(study=study, status="completed").count()
    submitted = stats["stored_ok"]
    trials = 2 * args.pairs + 2
    print_report(
        args,
        stats,
        wall=wall,
        host=urlsplit(url).hostname,
        load_before=load_before,
        server_cpu=server_cpu,
        postgres_cpu=postgres_cpu,
        client_cpu=client_cpu,
        stored=stored,
        completed=completed,
    )
    if stats["errors"]:
        print(f"errors              {len(stats['errors'])}, e.g. {stats['errors'][:3]}")
    if args.keep:
        print(f"kept study          {study.slug}")
    else:
        delete_study(study)
    media.cleanup()
    ok = stored == submitted == args.participants * trials and not stats["errors"]
    print(f"server log          {LOG_PATH.relative_to(ROOT)}")
    print("result              " + ("OK: stored == submitted" if ok else "MISMATCH"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
