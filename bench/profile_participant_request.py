"""CPU per participant answer in one process: what the shipped trial page asks per answer.

Runs a WSGI client against a PostgreSQL database (DATABASE_URL, migrated here; a live study
of --pairs chart pairs as bench_participants.py builds it) with production settings (DEBUG
off), so the figure is the web process's own CPU without gunicorn or a load generator
sharing the cores. Per answer, as static/js/trial_flow.js does: one JSON POST whose reply
carries the next trial, then the GET of the chart after it (fetched ahead). With
--profile it prints the top functions by cumulative time; with --split, the CPU of one
answer by stage (middleware and handler, DRF, input check, locked read, write, next
trial's payload, rendering), measured by timing those functions themselves.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/chartroom_NAME \
        python bench/profile_participant_request.py --sessions 20 [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_participants import answer, create_study, delete_study  # noqa: E402
from bench.participants_server import process_cpu  # noqa: E402
from bench.profile_annotation_request import setup_django  # noqa: E402

database_cpu = [0.0]  # seconds, summed over the measured sessions


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=20, help="sessions to run through (20)")
    parser.add_argument("--pairs", type=int, default=10, help="chart pairs per session (10)")
    parser.add_argument("--profile", action="store_true", help="print the cProfile top 50")
    parser.add_argument("--sort", default="cumulative", help="pstats sort key (cumulative)")
    parser.add_argument("--no-charts", action="store_true", help="answers only, no chart GETs")
    parser.add_argument(
        "--split", action="store_true", help="the CPU of one answer by stage (no chart GETs)"
    )
    return parser.parse_args()


def start(client, slug: str, n: int) -> tuple[str, dict]:
    response = client.post(
        f"/api/v1/participate/studies/{slug}/sessions/",
        {"consent": True, "params": {"PROLIFIC_PID": f"prof{n:05d}", "STUDY_ID": "P"}},
        content_type="application/json",
    )
    assert response.status_code == 201, response.content
    token = response.json()["token"]
    response = client.get(f"/api/v1/participate/sessions/{token}/trial/")
    assert response.status_code == 200, response.content
    return token, response.json()


def backend_cpu() -> float:
    """CPU seconds so far of the PostgreSQL backend serving this process (same machine)."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return 0.0
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return process_cpu(cursor.fetchone()[0])


def one_session(client, slug: str, n: int, charts: bool, stages=None) -> tuple[int, float, float]:
    """Answers one session through; (answers, CPU seconds, wall seconds) of the answering,
    adding the database's CPU for them to ``database_cpu``."""
    if stages:
        stages.counting = False  # the start is not an answer
    token, trial = start(client, slug, n)
    if stages:
        stages.counting = True
    done = 0
    database = backend_cpu()
    cpu, wall = time.process_time(), time.perf_counter()
    while trial is not None:
        response = client.post(
            f"/api/v1/participate/sessions/{token}/responses/",
            {
                "position": trial["position"],
                "answer": answer(trial),
                "client_ms": 4000,
                "interactions": 2,
                "first_interaction_ms": 1500,
                "idempotency_key": f"p{n}-{trial['position']}",
            },
            content_type="application/json",
        )
        assert response.status_code == 201, response.content
        done += 1
        trial = response.json()["next_trial"]
        if charts and trial and trial["preload_image_url"]:
            image = client.get(urlsplit(trial["preload_image_url"]).path)
            assert image.status_code == 200, image.status_code
            b"".join(image)  # a file response: read it as the server would send it
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    database_cpu[0] += backend_cpu() - database
    return done, cpu, wall


def main() -> int:
    args = parse_args()
    setup_django()
    from django.core.management import call_command
    from django.test import Client

    call_command("migrate", verbosity=0)
    study = create_study(args.pairs)
    client = Client()
    stages = None
    try:
        one_session(client, study.slug, 0, not args.no_charts)  # warm up
        database_cpu[0] = 0.0
        if args.split:
            from bench.answer_stages import AnswerStages

            args.no_charts = True
            stages = AnswerStages()
            stages.install()
        profiler = cProfile.Profile() if args.profile else None
        if profiler:
            profiler.enable()
        total, cpu, wall = 0, 0.0, 0.0
        for n in range(1, args.sessions + 1):
            done, c, w = one_session(client, study.slug, n, not args.no_charts, stages)
            total, cpu, wall = total + done, cpu + c, wall + w
        if profiler:
            profiler.disable()
    finally:
        if stages:
            stages.uninstall()
        delete_study(study)
    what = "answers" if args.no_charts else "answers (each with its chart fetched ahead)"
    print(f"{total} {what}: {cpu / total * 1000:.2f} ms CPU, {wall / total * 1000:.2f} ms wall "
          "per answer" + (" (under cProfile)" if profiler else ""))  # fmt: skip
    print(f"PostgreSQL: {database_cpu[0] / total * 1000:.2f} ms CPU per answer (its backend, "
          "read from /proc in 10 ms ticks)")  # fmt: skip
    if profiler:
        pstats.Stats(profiler).sort_stats(args.sort).print_stats(50)
    if stages:
        stages.print_split(total, cpu)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
