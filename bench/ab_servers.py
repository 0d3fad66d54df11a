"""Two revisions of the code served side by side in the same minutes: CPU per answer of each.

A 2-CPU machine shared with other tenants drifts in speed by 10-20% within minutes, as much
as one change to the answer path saves, so runs of one version after the other cannot tell
the two apart. This bench checks both revisions out into temporary worktrees and starts one
Granian server for each (one process of two threads each: the Procfile's two processes,
split between the revisions) against the same PostgreSQL database. The participants of a
closed-loop run on the JSON flow (bench_participants.py's) go to the two servers in turn,
so both work through the same minutes of the machine. Each round swaps which revision
serves the even-numbered participants, since the two places are not quite alike. It
prints each round's CPU per answer of both servers (start pages included, warm-up
excluded) and the median of the ratios B / A.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/chartroom_bench \\
        .venv/bin/python bench/ab_servers.py HEAD~1 HEAD --rounds 4

Both revisions run on this checkout's database schema (its migrations): compare
revisions whose models are the same. Each round checks that every answer sent was
stored, once.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_participants import (  # noqa: E402 - needs ROOT on the path when run as a script
    answers_stored,
    create_study,
    delete_study,
    make_clock,
    new_stats,
    participant,
    setup_django,
    warm_up,
)
from bench.http_client import Http  # noqa: E402
from bench.participants_server import (  # noqa: E402
    free_port,
    process_group_cpu,
    server_env,
    start_server,
    stop,
)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("a", help="revision A (anything git rev-parse takes)")
    parser.add_argument("b", help="revision B")
    parser.add_argument("--rounds", type=int, default=4, help="runs, A and B swapping places (4)")
    parser.add_argument("--participants", type=int, default=100, help="per round, both (100)")
    parser.add_argument("--pairs", type=int, default=28, help="chart pairs in the study (28)")
    parser.add_argument("--threads", type=int, default=2, help="threads of each server (2)")
    return parser.parse_args(argv)


def checkout(revision: str, into: Path) -> str:
    """``revision`` checked out at ``into``; returns its short commit id."""
    commit = subprocess.run(
        ["git", "rev-parse", "--verify", f"{revision}^{{commit}}"], cwd=ROOT, check=True,
        capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    subprocess.run(
        ["git", "worktree", "add", "--detach", "--quiet", str(into), commit], cwd=ROOT,
        check=True,
    )  # fmt: skip
    return commit[:9]


def remove_worktree(path: Path) -> None:
    subprocess.run(["git", "worktree", "remove", "--force", str(path)], cwd=ROOT, check=False)


async def one_round(ports: list[int], pids: list[int], slug: str, participants: int):
    """Participants sent to the two servers in turn; (what each server's participants recorded, CPU of each)."""
    for port in ports:
        await warm_up(port, slug, 8)
    clock = make_clock(argparse.Namespace(lockstep_s=0, think_ms=0, ramp_s=1.0), 0.0)
    stats = [new_stats() for _ in ports]
    before = [process_group_cpu(pid) for pid in pids]

    async def one(n: int):
        side = n % 2
        http = Http(ports[side])
        await asyncio.sleep(random.random())  # arrivals over a second
        try:
            await participant(n, http, slug, clock, stats[side])
        finally:
            await http.close()

    await asyncio.gather(*(one(n) for n in range(participants)))
    cpu = [process_group_cpu(pid) - start for pid, start in zip(pids, before, strict=True)]
    return stats, cpu


def run_round(trees: list[Path], args) -> tuple[list[dict], list[float], bool]:
    study = create_study(args.pairs)
    ports = [free_port(), free_port()]
    servers = []
    try:
        for tree, port in zip(trees, ports, strict=True):
            # The tree's own code first on the path, whatever this process imports from.
            env = {**server_env(), "PYTHONPATH": str(tree)}
            servers.append(
                start_server(port, 1, args.threads, cwd=tree, env=env, log_path=tree / "server.log")
            )
        stats, cpu = asyncio.run(
            one_round(ports, [s.pid for s in servers], study.slug, args.participants)
        )
    finally:
        for server in servers:
            stop(server)
    sent = sum(s["stored_ok"] for s in stats)
    ok = answers_stored(study) == sent and not any(s["errors"] for s in stats)
    for s in stats:
        if s["errors"]:
            print(f"  errors: {len(s['errors'])}, e.g. {s['errors'][:2]}")
    delete_study(study)
    return stats, cpu, ok


def main(argv=None) -> int:
    args = parse_args(argv)
    if not os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://")):
        print("ab_servers needs PostgreSQL: set DATABASE_URL=postgres://...", file=sys.stderr)
        return 2
    media = tempfile.TemporaryDirectory(prefix="chartroom-ab-")
    os.environ["MEDIA_ROOT"] = media.name
    setup_django()
    work = Path(tempfile.mkdtemp(prefix="chartroom-ab-trees-"))
    trees = [work / "a", work / "b"]
    try:
        names = [checkout(args.a, trees[0]), checkout(args.b, trees[1])]
        print(f"A = {args.a} ({names[0]}), B = {args.b} ({names[1]}); {args.participants} "
              f"participants a round, each server 1 process x {args.threads} threads")  # fmt: skip
        ratios, all_ok = [], True
        for number in range(args.rounds):
            swapped = number % 2 == 1  # B takes the even-numbered participants
            order = [1, 0] if swapped else [0, 1]
            started = time.monotonic()
            stats, cpu, ok = run_round([trees[i] for i in order], args)
            per_answer = {}
            for place, side in enumerate(order):
                per_answer[side] = 1000 * cpu[place] / max(stats[place]["stored_ok"], 1)
            ratio = per_answer[1] / per_answer[0]
            ratios.append(ratio)
            all_ok &= ok
            print(
                f"round {number + 1}  A {per_answer[0]:.3f} ms/answer  B {per_answer[1]:.3f} "
                f"ms/answer  B/A {ratio:.3f}  ({'B' if swapped else 'A'} took the even "
                f"participants; {time.monotonic() - started:.0f} s; "
                f"{'stored == sent' if ok else 'MISMATCH'})"
            )
    finally:
        for tree in trees:
            remove_worktree(tree)
        shutil.rmtree(work, ignore_errors=True)
        media.cleanup()
    print(f"median B/A          {statistics.median(ratios):.3f} over {len(ratios)} rounds "
          f"(range {min(ratios):.3f}-{max(ratios):.3f})")  # fmt: skip
    print("result              " + ("OK: stored == submitted" if all_ok else "MISMATCH"))
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
