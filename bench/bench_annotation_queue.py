"""Load benchmark of the annotation work queue on the web server + PostgreSQL.

N annotators (separate processes, each with a keep-alive HTTP connection and an API token)
label items in a closed loop until every item of a project has k label sets (or until
--duration runs out). By default each item costs one request, as on the work page: the
submit carries `next: true` and its response holds the next lease (`--flow two` times the
older pair of requests, next then submit). Prints items/s, latency percentiles of getting
the next item (at the client, and inside the server from the Server-Timing header and
the server's access log), server CPU per item (web server and PostgreSQL backends), and
checks that what is stored is exactly what was submitted: no lost, duplicated or
over-collected label sets.

It needs PostgreSQL: set DATABASE_URL. The benchmark creates (and afterwards drops) its
own database, `<your database>_bench_queue`, on that server, and starts the web server
(Granian as the Procfile runs it, or `--server gunicorn`) itself.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/chartroom python bench/bench_annotation_queue.py
    # with think time (5-15 s per item, a minute): figures for next-item latency under real use
    DATABASE_URL=... python bench/bench_annotation_queue.py --think 5-15 --duration 60
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
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

# A sibling module: bench/ is on the path when this runs as a script or is imported by one.
from participants_server import start_server as web_server_start

ROOT = Path(__file__).resolve().parent.parent
DB_SUFFIX = "_bench_queue"
SERVER_LOG = ROOT / "var" / "bench-annotation-server.log"  # its output and access log


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=2000, help="items in the project (2000)")
    parser.add_argument("--k", type=int, default=3, help="annotators per item (3)")
    parser.add_argument("--annotators", type=int, default=50, help="concurrent annotators (50)")
    parser.add_argument(
        "--server",
        choices=("granian", "gunicorn"),
        default="granian",
        help="the web server: granian as the Procfile runs it, or gunicorn (granian)",
    )
    parser.add_argument("--workers", type=int, default=2, help="web server processes (2)")
    parser.add_argument(
        "--threads", type=int, default=2, help="threads per process, as the Procfile (2)"
    )
    parser.add_argument(
        "--think",
        type=think_range,
        default=(0.0, 0.0),
        help="seconds an annotator spends on an item: a number or a range such as 5-15 (0)",
    )
    parser.add_argument(
        "--flow",
        choices=("one", "two"),
        default="one",
        help="one: submit returns the next item (the page's flow); two: next, then submit (one)",
    )
    parser.add_argument(
        "--duration", type=float, default=0.0, help="stop after this many seconds (0: when done)"
    )
    parser.add_argument("--keep-db", action="store_true", help="do not drop the bench database")
    return parser.parse_args()


def think_range(text: str) -> tuple[float, float]:
    low, _, high = text.partition("-")
    low = float(low)
    return low, float(high) if high else low


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
    """The environment of a production-like web server on the bench database; this process uses
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


def start_server(args, env, port) -> subprocess.Popen:
    """The web server (``--server``) on the bench database, with an access log."""
    return web_server_start(
        port, args.workers, args.threads, server=getattr(args, "server", "granian"), env=env,
        log_path=SERVER_LOG, access_log=True,
    )  # fmt: skip


def annotate(job) -> dict:
    """One annotator: take items and submit labels until nothing is left (or time is up)."""
    port, slug, key, think, flow, deadline, seed_value = job
    rng = random.Random(seed_value)
    headers = {
        "Authorization": f"Token {key}",
        "Content-Type": "application/json",
        "Accept": "application/json",
    }
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    out = {"next": [], "next_server": [], "submit": [], "stored": 0, "requests": 0, "errors": []}
    keys = ["value_error", "label_error", "trend_error", "ooc_error", "nonsense_error"]

    def call(method, path, body=None):
        nonlocal conn
        payload = json.dumps(body).encode() if body is not None else None
        out["requests"] += 1
        for attempt in range(2):
            try:
                started = time.perf_counter()
                conn.request(method, path, body=payload, headers=headers)
                response = conn.getresponse()
                data = response.read()
                ms = (time.perf_counter() - started) * 1000
                return response.status, data, ms, server_ms(response.getheader("Server-Timing"))
            except (http.client.HTTPException, OSError):
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def ask_next():
        status, data, ms, inside = call("POST", f"/api/v1/annotator/projects/{slug}/next/")
        out["next"].append(ms)
        out["next_server"].append(inside)
        if status == 200:
            return json.loads(data)
        if status != 204:
            out["errors"].append(f"next {status} {data[:200]!r}")
        return None

    lease = ask_next()
    while lease is not None and len(out["errors"]) <= 20:
        low, high = think
        if high:
            time.sleep(rng.uniform(low, high))
        if deadline and time.time() > deadline:
            break
        labels = [[k for k in keys if rng.random() < 0.12] for _ in lease["item"]["sentences"]]
        body = {"labels": labels, "active_seconds": 1, "next": flow == "one"}
        path = f"/api/v1/annotator/assignments/{lease['id']}/submit/"
        status, data, ms, inside = call("POST", path, body)
        out["submit"].append(ms)
        if status == 201:
            out["stored"] += 1
        elif status != 200:  # 200: a repeat, already stored
            out["errors"].append(f"submit {status} {data[:200]!r}")
        if flow == "one" and status in (200, 201):
            # The submit was also the request for the next item.
            out["next"].append(ms)
            out["next_server"].append(inside)
            answer = json.loads(data)
            lease = answer["next"]
            if answer["next_refused"]:
                out["errors"].append(f"next refused {answer['next_refused']}")
        else:
            lease = ask_next()
    conn.close()
    return out


def server_ms(header: str | None) -> float:
    """The app's time from a Server-Timing header ("app;dur=12.3"), NaN without one."""
    for part in (header or "").split(","):
        name, _, dur = part.strip().partition(";dur=")
        if name == "app" and dur:
            return float(dur)
    return float("nan")


def cpu_seconds(pids) -> float:
    """User + system CPU seconds used so far by the processes ``pids`` (Linux /proc)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


def settled_cpu(pgid: int, timeout: float = 90.0) -> float:
    """The server's CPU seconds once every worker has booted (its CPU stops growing).

    Workers load Django and the analysis libraries after /healthz first answers;
    that start-up is not work done per item.
    """
    last = cpu_seconds(group_pids(pgid))
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        time.sleep(1.0)
        now = cpu_seconds(group_pids(pgid))
        if now - last < 0.05:
            return now
        last = now
    return last


def group_pids(pgid: int) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid:
                pids.append(int(entry.name))
    return pids


def backend_pids(bench_url: str, name: str) -> list[int]:
    """PostgreSQL backends serving the bench database (this machine's server only)."""
    import psycopg

    with psycopg.connect(bench_url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            (name,),
        ).fetchall()
    return [pid for (pid,) in rows]


def server_times() -> dict[str, list[float]]:
    """Per-request time spent inside the web server, from its access log (milliseconds)."""
    times: dict[str, list[float]] = {"next item": [], "submit": []}
    for line in SERVER_LOG.read_text().splitlines():
        parts = line.split()
        if len(parts) != 4 or parts[0] != "POST":
            continue
        label = "next item" if parts[1].endswith("/next/") else "submit"
        times[label].append(float(parts[3]))
    return times


def percentile(values, p) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[index]


def check_labels(k: int, submitted: int, complete: bool) -> tuple[bool, str]:
    """Stored == submitted, nobody twice on an item, no item past k (and, run to the end, all at k)."""
    from django.db import connections
    from django.db.models import Count

    from annotation.models import Item, LabelSet

    connections.close_all()
    counts = list(
        Item.objects.filter(project__slug="queue-bench")
        .annotate(n=Count("label_sets"), people=Count("label_sets__annotator", distinct=True))
        .values_list("n", "people")
    )
    per_item = [n for n, _ in counts]
    distinct_ok = all(n == people for n, people in counts)
    over = sum(n > k for n in per_item)
    exact = all(n == k for n in per_item)
    total = LabelSet.objects.filter(project__slug="queue-bench").count()
    ok = total == submitted and distinct_ok and not over and (exact or not complete)
    summary = (
        f"stored {total} label sets, submitted {submitted} ({'equal' if total == submitted else 'DIFFERENT'}); "
        f"per item min {min(per_item)}, max {max(per_item)}, exactly k={k}: "
        f"{sum(n == k for n in per_item)}/{len(per_item)}, over k: {over}; "
        f"all from distinct annotators: {'yes' if distinct_ok else 'NO'}"
    )
    return ok, summary


def report(args, results, elapsed, cpu) -> tuple[list[str], int]:
    next_ms = [ms for r in results for ms in r["next"]]
    inside = [ms for r in results for ms in r["next_server"] if ms == ms]  # drop NaN
    # Every annotator asks for a first item at the same moment when the bench starts (and on
    # workers that have served nothing yet); with think time that burst is a large share of
    # the requests, so the steady state is shown apart as well.
    later = [ms for r in results for ms in r["next_server"][1:] if ms == ms]
    submit_ms = [ms for r in results for ms in r["submit"]]
    stored = sum(r["stored"] for r in results)
    requests = sum(r["requests"] for r in results)
    lines = [
        f"Done in {elapsed:.1f} s: {stored} label sets stored, {requests} requests "
        f"({requests / max(stored, 1):.2f} per item); load average {os.getloadavg()[0]:.2f}",
        f"Throughput: {stored / elapsed:.1f} items/s, {requests / elapsed:.0f} requests/s",
    ]

    def line(label, values):
        if not values:
            return f"{label:>26}: no requests"
        return (
            f"{label:>26} ms: p50 {percentile(values, 50):.1f}  p95 {percentile(values, 95):.1f}  "
            f"p99 {percentile(values, 99):.1f}  max {max(values):.1f}"
        )

    what = "submit + next" if args.flow == "one" else "next"
    lines.append(line(f"next item ({what}), client", next_ms))
    lines.append(line("next item, inside the app", inside))
    lines.append(line("after each one's first", later))
    if args.flow == "two":
        lines.append(line("submit, client", submit_ms))
    for label, values in server_times().items():
        if values:
            lines.append(line(f"{label}, inside the web server", values))
    web, postgres = cpu
    lines.append(
        f"Server CPU per item: web server {web / max(stored, 1) * 1000:.1f} ms + PostgreSQL "
        f"{postgres / max(stored, 1) * 1000:.1f} ms ({web:.1f} s + {postgres:.1f} s "
        f"over {elapsed:.0f} s x {os.cpu_count()} CPUs)"
    )
    return lines, stored


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
    low, high = args.think
    print(
        f"Annotation queue benchmark: {args.items} items x k={args.k}, {args.annotators} "
        f"annotators in a closed loop, think {low:g}-{high:g} s, flow: "
        f"{'submit returns the next item' if args.flow == 'one' else 'next, then submit'}, "
        f"{args.server} {args.workers} workers x {args.threads} threads, database {name}"
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
        server = start_server(args, env, port)
        deadline = time.time() + args.duration if args.duration else 0.0
        jobs = [(port, slug, key, args.think, args.flow, deadline, n) for n, key in enumerate(keys)]
        context = multiprocessing.get_context("fork")
        cpu_before = settled_cpu(server.pid)
        started = time.monotonic()
        with context.Pool(len(jobs)) as pool:
            results = pool.map(annotate, jobs)
        elapsed = time.monotonic() - started
        cpu = (
            cpu_seconds(group_pids(server.pid)) - cpu_before,
            # The backends were opened by the workers during the run (the seeding closed its own).
            cpu_seconds(backend_pids(bench_url, name)),
        )
        lines, stored = report(args, results, elapsed, cpu)
        print("\n".join(lines))
        errors = [e for r in results for e in r["errors"]]
        if errors:
            print(f"{len(errors)} unexpected responses, e.g. {errors[:3]}")
        ok, summary = check_labels(args.k, stored, complete=not args.duration)
        print(("OK   " if ok else "FAIL ") + summary)
        return 0 if ok and not errors else 1
    finally:
        if server is not None:
            os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
        from django.db import connections

        connections.close_all()
        if not args.keep_db:
            recreate_database(admin_url, name, drop_only=True)


if __name__ == "__main__":
    sys.exit(main())
