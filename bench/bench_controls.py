"""Do control items answer as fast as ordinary ones? Timing of "next item" and "submit" by kind.

A qualified annotator must not be able to tell a control item from an ordinary one,
not even by how long the server takes. This benchmark leases and submits items one
request at a time (no concurrent load, so nothing but the server's own work varies)
on the web server + PostgreSQL, with controls mixed in at --rate, then sorts the timings by
kind and compares them: medians, quartiles, the difference of medians with a bootstrap
95% interval, and a Mann-Whitney U test.

It needs PostgreSQL: set DATABASE_URL. The benchmark creates (and afterwards drops) its
own database, `<your database>_bench_controls`, on that server, and starts the web server (Granian, as the Procfile runs it).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/chartroom python bench/bench_controls.py
    python bench/bench_controls.py --annotators 4 --items-each 50   # a quicker run
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_annotation_queue import (  # noqa: E402 - sibling benchmark's server helpers
    ROOT,
    bench_database_url,
    free_port,
    recreate_database,
    server_env,
    start_server,
)

KEYS = ["value_error", "label_error", "trend_error", "ooc_error", "nonsense_error"]


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--annotators", type=int, default=10, help="qualified annotators (10)")
    parser.add_argument("--items-each", type=int, default=120, help="items each one takes (120)")
    parser.add_argument("--controls", type=int, default=60, help="control items (60)")
    parser.add_argument("--rate", type=float, default=0.25, help="control rate (0.25)")
    parser.add_argument("--keep-db", action="store_true", help="do not drop the bench database")
    args = parser.parse_args()
    args.workers, args.threads = 1, 1  # one request at a time: start_server reads these
    return args


def seed(args) -> tuple[str, list[str], set[int]]:
    """A project with one qualification round, control items and qualified annotators."""
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connections

    from annotation.models import Item
    from annotation.services import project_create, project_join
    from annotation.services.quality import annotator_decide, gold_set, policy_for, round_create
    from core.models import User
    from core.services.tokens import api_token_create

    call_command("migrate", verbosity=0)
    owner = User.objects.create_user(username="bench-owner", role=User.Role.RESEARCHER)
    project = project_create(owner=owner, title="Control timing", slug="controls-bench")
    rng = random.Random(7)
    total = args.annotators * args.items_each + args.controls + 1
    Item.objects.bulk_create(
        Item(
            project=project,
            external_id=f"bench-{n}",
            sentences=[f"Sentence {s} of caption {n}." for s in range(rng.randint(1, 6))],
            model="bench",
            image_url=f"https://charts.example.org/{n}.png",
            position=n,
        )
        for n in range(total)
    )
    items = list(Item.objects.filter(project=project).order_by("position"))
    gold = [
        gold_set(project=project, item=item, labels=[[] for _ in item.sentences], actor=owner)
        for item in items[: args.controls + 1]
    ]
    round_create(project=project, title="Round one", gold_items=gold[:1], actor=owner)
    policy = policy_for(project)
    policy.control_rate, policy.min_controls = args.rate, 10_000  # nobody gets paused here
    policy.save()
    keys = []
    for n in range(args.annotators):
        user = User.objects.create_user(username=f"bench-annotator-{n}", role=User.Role.ANNOTATOR)
        project_join(project=project, annotator=user)
        annotator_decide(project=project, annotator=user, action="qualify",
                         reason="benchmark", actor=owner)  # fmt: skip
        keys.append(api_token_create(user=user, name="bench").key)
    controls = {g.item_id for g in gold[1:]}
    with connections["default"].cursor() as cursor:
        cursor.execute("ANALYZE")  # planner statistics, as autovacuum would have them
    connections.close_all()
    return project.slug, keys, controls


def run(port: int, slug: str, keys: list[str], items_each: int) -> list[dict]:
    """Each annotator in turn: next, submit, ... ``items_each`` times; one request at a time."""
    import http.client

    rng = random.Random(11)
    rows = []
    for key in keys:
        headers = {"Authorization": f"Token {key}", "Content-Type": "application/json"}
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

        def call(method, path, body=None, conn=conn, headers=headers):
            payload = json.dumps(body).encode() if body is not None else None
            started = time.perf_counter()
            conn.request(method, path, body=payload, headers=headers)
            response = conn.getresponse()
            data = response.read()
            return response.status, data, (time.perf_counter() - started) * 1000

        for _ in range(items_each):
            status, data, next_ms = call("POST", f"/api/v1/annotator/projects/{slug}/next/")
            if status != 200:
                raise SystemExit(f"next item answered {status}: {data[:300]!r}")
            lease = json.loads(data)
            labels = [[k for k in KEYS if rng.random() < 0.12] for _ in lease["item"]["sentences"]]
            status, data, submit_ms = call(
                "POST", f"/api/v1/annotator/assignments/{lease['id']}/submit/",
                {"labels": labels, "active_seconds": 1},
            )  # fmt: skip
            if status != 201:
                raise SystemExit(f"submit answered {status}: {data[:300]!r}")
            rows.append({"assignment": lease["id"], "next": next_ms, "submit": submit_ms})
        conn.close()
    return rows


def kinds(rows: list[dict], controls: set[int]) -> None:
    from annotation.models import Assignment

    item_of = dict(
        Assignment.objects.filter(pk__in=[r["assignment"] for r in rows]).values_list(
            "pk", "item_id"
        )
    )
    for row in rows:
        row["control"] = item_of[row["assignment"]] in controls


def median_difference(a, b, *, draws: int = 4000, seed: int = 3) -> tuple[float, float, float]:
    """Median(a) - median(b) with a percentile bootstrap 95% interval."""
    rng = np.random.default_rng(seed)
    a, b = np.asarray(a), np.asarray(b)
    boot = np.median(rng.choice(a, (draws, a.size)), axis=1) - np.median(
        rng.choice(b, (draws, b.size)), axis=1
    )
    low, high = np.percentile(boot, [2.5, 97.5])
    return float(np.median(a) - np.median(b)), float(low), float(high)


def report(rows: list[dict]) -> None:
    from scipy.stats import mannwhitneyu

    control = [r for r in rows if r["control"]]
    normal = [r for r in rows if not r["control"]]
    print(f"{len(rows)} items: {len(control)} controls, {len(normal)} ordinary")
    for step in ("next", "submit"):
        print(f"\n{step}: ms  n     p25    p50    p75    p95")
        for label, group in (("control", control), ("ordinary", normal)):
            values = np.array([r[step] for r in group])
            p25, p50, p75, p95 = np.percentile(values, [25, 50, 75, 95])
            print(f"  {label:>8} {values.size:4d} {p25:6.2f} {p50:6.2f} {p75:6.2f} {p95:6.2f}")
        a = [r[step] for r in control]
        b = [r[step] for r in normal]
        diff, low, high = median_difference(a, b)
        p = mannwhitneyu(a, b, alternative="two-sided").pvalue
        print(
            f"  control - ordinary median: {diff:+.2f} ms (95% CI {low:+.2f} to {high:+.2f}); "
            f"Mann-Whitney p = {p:.3f}"
        )


def main() -> int:
    args = parse_args()
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        print(
            "bench_controls needs PostgreSQL: set DATABASE_URL=postgres://USER@HOST:5432/NAME "
            "(the benchmark creates and drops its own NAME_bench_controls database there).",
            file=sys.stderr,
        )
        return 2
    sys.path.insert(0, str(ROOT))
    bench_url, name, admin_url = bench_database_url(url, "_bench_controls")
    print(
        f"Control item timing: {args.annotators} annotators x {args.items_each} items, "
        f"control rate {args.rate}, one request at a time, database {name}"
    )
    recreate_database(admin_url, name)
    env = server_env(bench_url)
    (ROOT / "var").mkdir(exist_ok=True)
    server = None
    try:
        slug, keys, controls = seed(args)
        port = free_port()
        server = start_server(args, env, port)
        rows = run(port, slug, keys, args.items_each)
        kinds(rows, controls)
        report(rows)
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=30)
        if not args.keep_db:
            from django.db import connections

            connections.close_all()
            recreate_database(admin_url, name, drop_only=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
