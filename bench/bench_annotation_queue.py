"""Load benchmark of the annotation work queue on gunicorn + PostgreSQL.

N annotators (separate processes, each with a keep-alive HTTP connection and an API token)
ask for their next item and submit labels for it, as fast as they can, until every item of
a project has k label sets. Prints throughput, latency percentiles of "next item" and
"submit", and checks that every item ended with exactly k label sets from k different
annotators.

It needs PostgreSQL: set DATABASE_URL. The benchmark creates (and afterwards drops) its
own database, `<your database>_bench_queue`, on that server, and starts gunicorn itself.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/chartroom python bench/bench_annotation_queue.py
    python bench/bench_annotation_queue.py --items 500 --annotators 20   # a quicker run
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import random
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
DB_SUFFIX = "_bench_queue"
ACCESS_LOG = ROOT / "var" / "bench-gunicorn-access.log"


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=2000, help="items in the project (2000)")
    parser.add_argument("--k", type=int, default=3, help="annotators per item (3)")
    parser.add_argument("--annotators", type=int, default=50, help="concurrent annotators (50)")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn worker processes (4)")
    parser.add_argument(
        "--threads", type=int, default=1, help="threads per gunicorn worker; >1 uses gthread (1)"
    )
    parser.add_argument(
        "--think", type=float, default=0.0, help="seconds an annotator waits between requests (0)"
    )
    parser.add_argument("--keep-db", action="store_true", help="do not drop the bench database")
    return parser.parse_args()


def bench_database_url(url: str, suffix: str = DB_SUFFIX) -> tuple[str, str, str]:
    """(bench database URL, its name, the maintenance database URL) on the same server."""
    parts = urlsplit(url)
    name = (parts.path.lstrip("/") or "chartroom") + suffix
    bench = urlunsplit(parts._replace(path=f"/{name}"))
    admin = urlunsplit(parts._replace(path="/postgres"))
    return bench, name, admin


def recreate_database(admin_url: str, name: str, *, drop_only: bool = False) -> None:
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if not drop_only:
            conn.execute(f'CREATE DATABASE "{name}"')


def seed(args) -> tuple[str, list[str]]:
    """Migrate the bench database and create the project, its items and annotators' tokens."""
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connections

    from annotation.models import Item
    from annotation.services import project_create, project_join
    from core.models import User
    from core.services.tokens import api_token_create

    call_command("migrate", verbosity=0)
    owner = User.objects.create_user(username="bench-owner", role=User.Role.RESEARCHER)
    project = project_create(
        owner=owner, title="Queue benchmark", slug="queue-bench", annotators_per_item=args.k
    )
    rng = random.Random(6)
    Item.objects.bulk_create(
        (
            Item(
                project=project,
                external_id=f"bench-{n}",
                sentences=[f"Sentence {s} of caption {n}." for s in range(rng.randint(1, 6))],
                model=rng.choice(["gpt4v", "bard", "deplot", "chartt5", "matcha", "unichart"]),
                dataset=rng.choice(["pew", "vistext"]),
                image_url=f"https://charts.example.org/{n}.png",
                position=n,
            )
            for n in range(args.items)
        ),
        batch_size=1000,
    )
    keys = []
    for n in range(args.annotators):
        user = User.objects.create_user(username=f"bench-annotator-{n}", role=User.Role.ANNOTATOR)
        project_join(project=project, annotator=user)
        keys.append(api_token_create(user=user, name="bench").key)
    connections.close_all()  # nothing shared with the client processes forked later
    return project.slug, keys


def server_env(bench_url: str) -> dict:
    """The environment of a production-like gunicorn on the bench database; this process uses
    the same database and settings for seeding and checking."""
    env = dict(os.environ)
    env.update(
        DATABASE_URL=bench_url,
        DJANGO_SETTINGS_MODULE="config.settings",
        DJANGO_DEBUG="0",
        SECRET_KEY=secrets.token_urlsafe(40),
        ALLOWED_HOSTS="127.0.0.1,localhost",
        SECURE_SSL_REDIRECT="0",  # plain HTTP on the loopback, no TLS proxy in front
        DB_CONN_MAX_AGE="600",
    )
    env.pop("CELERY_BROKER_URL", None)  # nothing here dispatches tasks
    os.environ.update({k: env[k] for k in ("DATABASE_URL", "DJANGO_SETTINGS_MODULE")})
    return env


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_gunicorn(args, env, port) -> subprocess.Popen:
    ACCESS_LOG.unlink(missing_ok=True)  # gunicorn appends; each run reads only its own requests
    log = open(ROOT / "var" / "bench-gunicorn.log", "w")  # noqa: SIM115 - closed with the process
    process = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "config.wsgi", "--bind", f"127.0.0.1:{port}",
         "--workers", str(args.workers), "--threads", str(args.threads),
         "--worker-class", "gthread" if args.threads > 1 else "sync",
         "--keep-alive", "30", "--timeout", "60", "--backlog", "2048",
         "--access-logfile", str(ACCESS_LOG), "--access-logformat", "%(m)s %(U)s %(s)s %(D)s"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"gunicorn exited early; see {log.name}")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/healthz")
            if conn.getresponse().status == 200:
                return process
        except OSError:
            pass
        time.sleep(0.3)
    process.terminate()
    raise SystemExit(f"gunicorn did not answer /healthz within 60 s; see {log.name}")


def annotate(job) -> dict:
    """One annotator: next, submit, next ... until the queue has nothing left for them."""
    port, slug, key, think, seed_value = job
    rng = random.Random(seed_value)
    headers = {
        "Authorization": f"Token {key}",
        "Content-Type": "application/json",
        "Accept": "application/json",
    }
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    next_ms, submit_ms, errors = [], [], []
    keys = ["value_error", "label_error", "trend_error", "ooc_error", "nonsense_error"]

    def call(method, path, body=None):
        nonlocal conn
        payload = json.dumps(body).encode() if body is not None else None
        for attempt in range(2):
            try:
                started = time.perf_counter()
                conn.request(method, path, body=payload, headers=headers)
                response = conn.getresponse()
                data = response.read()
                return response.status, data, (time.perf_counter() - started) * 1000
            except (http.client.HTTPException, OSError):
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                if attempt:
                    raise
        raise AssertionError("unreachable")

    while True:
        status, data, ms = call("POST", f"/api/v1/annotator/projects/{slug}/next/")
        next_ms.append(ms)
        if status == 204:
            break
        if status != 200:
            errors.append(f"next {status} {data[:200]!r}")
            if len(errors) > 20:
                break
            continue
        lease = json.loads(data)
        labels = [[k for k in keys if rng.random() < 0.12] for _ in lease["item"]["sentences"]]
        if think:
            time.sleep(think)
        status, data, ms = call(
            "POST",
            f"/api/v1/annotator/assignments/{lease['id']}/submit/",
            {"labels": labels, "active_seconds": 1},
        )
        submit_ms.append(ms)
        if status != 201:
            errors.append(f"submit {status} {data[:200]!r}")
        if think:
            time.sleep(think)
    conn.close()
    return {"next": next_ms, "submit": submit_ms, "errors": errors}


def server_times() -> dict[str, list[float]]:
    """Per-request time spent inside gunicorn workers, from the access log."""
    times: dict[str, list[float]] = {"next item": [], "submit": []}
    for line in ACCESS_LOG.read_text().splitlines():
        parts = line.split()
        if len(parts) != 4 or parts[0] != "POST":
            continue
        label = "next item" if parts[1].endswith("/next/") else "submit"
        times[label].append(int(parts[3]) / 1000)
    return times


def percentile(values, p) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[index]


def check_labels(k: int) -> tuple[bool, str]:
    from django.db import connections
    from django.db.models import Count

    from annotation.models import Item, LabelSet

    connections.close_all()
    counts = (
        Item.objects.filter(project__slug="queue-bench")
        .annotate(n=Count("label_sets"), people=Count("label_sets__annotator", distinct=True))
        .values_list("n", "people")
    )
    counts = list(counts)
    per_item = [n for n, _ in counts]
    distinct_ok = all(n == people for n, people in counts)
    exact = all(n == k for n in per_item)
    total = LabelSet.objects.filter(project__slug="queue-bench").count()
    summary = (
        f"label sets per item: min {min(per_item)}, max {max(per_item)}, "
        f"items with exactly k={k}: {sum(n == k for n in per_item)}/{len(per_item)}; "
        f"all from distinct annotators: {'yes' if distinct_ok else 'NO'}; total {total}"
    )
    return exact and distinct_ok, summary


def main() -> int:
    args = parse_args()
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        print(
            "bench_annotation_queue needs PostgreSQL: set DATABASE_URL=postgres://USER@HOST:5432/NAME "
            "(the benchmark creates and drops its own NAME_bench_queue database there).",
            file=sys.stderr,
        )
        return 2
    sys.path.insert(0, str(ROOT))
    bench_url, name, admin_url = bench_database_url(url)
    print(
        f"Annotation queue benchmark: {args.items} items x k={args.k}, {args.annotators} "
        f"concurrent annotators, gunicorn {args.workers} workers x {args.threads} threads, "
        f"database {name}"
    )
    recreate_database(admin_url, name)
    env = server_env(bench_url)
    (ROOT / "var").mkdir(exist_ok=True)
    server = None
    try:
        started = time.monotonic()
        slug, keys = seed(args)
        print(f"Seeded in {time.monotonic() - started:.1f} s")
        port = free_port()
        server = start_gunicorn(args, env, port)
        jobs = [(port, slug, key, args.think, n) for n, key in enumerate(keys)]
        context = multiprocessing.get_context("fork")
        started = time.monotonic()
        with context.Pool(len(jobs)) as pool:
            results = pool.map(annotate, jobs)
        elapsed = time.monotonic() - started

        next_ms = [ms for r in results for ms in r["next"]]
        submit_ms = [ms for r in results for ms in r["submit"]]
        errors = [e for r in results for e in r["errors"]]
        requests = len(next_ms) + len(submit_ms)
        print(f"Done in {elapsed:.1f} s: {len(submit_ms)} submits, {requests} requests")
        print(
            f"Throughput: {len(submit_ms) / elapsed:.0f} label sets/s, {requests / elapsed:.0f} requests/s"
        )
        for label, values in (("next item", next_ms), ("submit", submit_ms)):
            print(
                f"{label:>9} latency ms: p50 {percentile(values, 50):.1f}  p95 {percentile(values, 95):.1f}  "
                f"p99 {percentile(values, 99):.1f}  max {max(values):.1f}  mean {statistics.fmean(values):.1f}"
            )
        server_side = server_times()
        for label, values in server_side.items():
            print(
                f"{label:>9} time inside gunicorn ms: p50 {percentile(values, 50):.1f}  "
                f"p95 {percentile(values, 95):.1f}  (the rest of the latency is waiting for a worker)"
            )
        if errors:
            print(f"{len(errors)} unexpected responses, e.g. {errors[:3]}")
        ok, summary = check_labels(args.k)
        print(("OK  " if ok else "FAIL ") + summary)
        return 0 if ok and not errors else 1
    finally:
        if server is not None:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
        from django.db import connections

        connections.close_all()
        if not args.keep_db:
            recreate_database(admin_url, name, drop_only=True)


if __name__ == "__main__":
    sys.exit(main())
