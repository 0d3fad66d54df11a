"""Two web nodes behind a round-robin client, beside one node: throughput and p95.

Runs bench_participants' workload (simulated participants taking a live study through the
JSON flow) twice: against one gunicorn node, then against NODES nodes with every request
sent to the next node in turn, as a round-robin load balancer would. Each node has its own
CHARTROOM_VAR_DIR and the same SECRET_KEY, PostgreSQL and (when CACHE_URL is set) Redis;
with --pgbouncer every node connects through one PgBouncer in transaction pooling mode.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/chartroom \\
        .venv/bin/python bench/bench_nodes.py --participants 60 --pairs 6

Nodes on one machine share its CPUs: the figures show that nothing is lost or serialized
between nodes, and the cost per request; capacity per machine is measured with one node per
machine.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import secrets
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_participants import (  # noqa: E402 - needs ROOT on the path when run as a script
    answer,
    create_study,
    delete_study,
    setup_django,
    warm_up,
)
from bench.http_client import Http  # noqa: E402
from bench.participants_report import pct  # noqa: E402
from bench.participants_server import free_port, process_group_cpu, start_server, stop  # noqa: E402


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--participants", type=int, default=60)
    parser.add_argument("--pairs", type=int, default=6)
    parser.add_argument("--nodes", type=int, default=2, help="nodes in the second run (default 2)")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers per node")
    parser.add_argument("--threads", type=int, default=2, help="threads per worker")
    parser.add_argument("--think-ms", type=float, default=300, help="mean pause before answers")
    parser.add_argument("--ramp-s", type=float, default=3.0, help="spread arrivals over this")
    parser.add_argument("--pgbouncer", action="store_true", help="nodes connect through PgBouncer")
    return parser.parse_args(argv)


class RoundRobin:
    """One keep-alive connection per node; each request goes to the next node."""

    def __init__(self, ports):
        self.clients = [Http(port) for port in ports]
        self._next = itertools.cycle(self.clients)

    async def request(self, method, path, body=None):
        return await next(self._next).request(method, path, body)

    async def close(self):
        for client in self.clients:
            await client.close()


async def participant(n, ports, slug, args, stats):
    await asyncio.sleep(args.ramp_s * n / max(args.participants, 1))
    http = RoundRobin(ports)
    try:
        status, state = await http.request(
            "POST", f"/api/v1/participate/studies/{slug}/sessions/",
            {"consent": True, "params": {"PROLIFIC_PID": f"nodes{n:05d}-{slug[-6:]}"}},
        )  # fmt: skip
        if status != 201:
            stats["errors"].append(f"start {status} {state}")
            return
        base = f"/api/v1/participate/sessions/{state['token']}"
        status, trial = await http.request("GET", f"{base}/trial/")
        if status != 200:
            stats["errors"].append(f"trial {status} {trial}")
            return
        while trial:
            await asyncio.sleep(
                args.think_ms / 1000 * (0.5 + (n * 7 + trial["position"]) % 10 / 10)
            )
            body = {"position": trial["position"], "answer": answer(trial), "interactions": 3,
                    "idempotency_key": f"{n}-{trial['position']}"}  # fmt: skip
            t0 = time.perf_counter()
            status, result = await http.request("POST", f"{base}/responses/", body)
            stats["latency"].append(time.perf_counter() - t0)
            if status != 201:
                stats["errors"].append(f"submit {status} {result}")
                return
            stats["stored"] += 1
            trial = result["next_trial"]
    finally:
        await http.close()


def start_nodes(count, args, folder: Path):
    servers = []
    for i in range(count):
        os.environ["CHARTROOM_VAR_DIR"] = str(folder / f"node-{i}")
        port = free_port()
        servers.append((start_server(port, args.workers, args.threads), port))
    return servers


def run(count, args, folder):
    from studies.models import Response

    study = create_study(args.pairs)
    servers = start_nodes(count, args, folder)
    ports = [port for _, port in servers]
    stats = {"latency": [], "errors": [], "stored": 0}
    for port in ports:  # every worker imports and compiles on its first requests
        asyncio.run(warm_up(port, study.slug, 2 * args.workers * args.threads))
    cpu = [process_group_cpu(proc.pid) for proc, _ in servers]
    started = time.perf_counter()
    try:
        asyncio.run(_all(ports, study.slug, args, stats))
        wall = time.perf_counter() - started
        cpu = sum(process_group_cpu(p.pid) - c for (p, _), c in zip(servers, cpu, strict=True))
    finally:
        for proc, _ in servers:
            stop(proc)
    in_db = Response.objects.filter(session__study=study).count()
    delete_study(study)
    return {"wall": wall, "cpu": cpu, "in_db": in_db, **stats}


async def _all(ports, slug, args, stats):
    await asyncio.gather(
        *(participant(n, ports, slug, args, stats) for n in range(args.participants))
    )


def report(label, r):
    n = len(r["latency"])
    print(
        f"{label:<10} {n / r['wall']:7.1f} answers/s  p50 {pct(r['latency'], 50):6.1f} ms  "
        f"p95 {pct(r['latency'], 95):6.1f} ms  server CPU {r['cpu'] / max(n, 1) * 1000:5.1f} ms/answer  "
        f"stored {r['stored']} in db {r['in_db']}  errors {len(r['errors'])}"
    )
    return r["stored"] == r["in_db"] and not r["errors"]


def main(argv=None) -> int:
    args = parse_args(argv)
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        print("bench_nodes needs DATABASE_URL=postgres://...", file=sys.stderr)
        return 2
    folder = Path(tempfile.mkdtemp(prefix="chartroom-nodes-"))
    os.environ["MEDIA_ROOT"] = str(folder / "media")  # one folder: the nodes' shared storage
    os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))  # the same on every node
    setup_django()
    bouncer = None
    if args.pgbouncer:
        from core.tests.nodes import pgbouncer_start

        bouncer, port = pgbouncer_start(folder, pool_size=10)
        os.environ["DATABASE_URL"] = f"postgres://postgres@127.0.0.1:{port}/{url.rsplit('/', 1)[1]}"
        os.environ["DB_POOLER"] = "pgbouncer"
    print(f"{args.participants} participants x {2 * args.pairs + 2} trials, think {args.think_ms:.0f} ms; "
          f"gunicorn {args.workers}x{args.threads} per node; {os.cpu_count()} CPUs; "
          f"load {os.getloadavg()[0]:.1f}; pgbouncer {'on' if bouncer else 'off'}")  # fmt: skip
    try:
        ok = report("1 node", run(1, args, folder))
        ok = report(f"{args.nodes} nodes", run(args.nodes, args, folder)) and ok
    finally:
        if bouncer is not None:
            bouncer.terminate()
    print(f"load after {os.getloadavg()[0]:.1f}; result " + ("OK" if ok else "MISMATCH"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
