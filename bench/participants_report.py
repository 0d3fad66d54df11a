"""What the participant benchmark prints."""

from __future__ import annotations

import os


def pct(values, q):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))] * 1000


def latency(values) -> str:
    p50, p95, p99, top = (pct(values, q) for q in (50, 95, 99, 100))
    return f"p50 {p50:.1f} ms  p95 {p95:.1f} ms  p99 {p99:.1f} ms  max {top:.1f} ms"


def pacing(args) -> str:
    if args.lockstep_s:
        return f"lockstep: every participant answers together every {args.lockstep_s:g} s"
    if args.think_ms:
        low, high = 0.5 * args.think_ms / 1000, 1.5 * args.think_ms / 1000
        return f"think time uniform {low:g}-{high:g} s (mean {args.think_ms:.0f} ms)"
    return "closed loop, no think time"


def workers_of(args) -> str:
    if getattr(args, "server", "gunicorn") == "granian":
        return f"granian {args.workers} workers x {args.threads} blocking threads"
    if getattr(args, "worker_class", "gthread") == "sync":
        return f"gunicorn {args.workers} sync workers"
    return f"gunicorn {args.workers} gthread workers x {args.threads} threads"


def middle(stats: dict) -> str:
    """Answers/s over the middle 80% of the answers (10th to 90th percentile of their reply
    times): the closed loop's steady state, without the arrivals and the last sessions' tail."""
    times = sorted(stats.get("answered_at") or [])
    if len(times) < 20:
        return "not measured (too few answers)"
    low, high = times[len(times) // 10], times[len(times) * 9 // 10]
    if high - low <= 0:
        return "not measured (no time between them)"
    answers = len(times) * 9 // 10 - len(times) // 10
    return f"{answers / (high - low):.1f} answers/s over {high - low:.1f} s"


def print_report(
    args,
    stats: dict,
    *,
    wall: float,
    host: str,
    load_before: float,
    server_cpu: float,
    client_cpu: float,
    postgres_cpu: float | None = None,
    stored: int,
    completed: int,
) -> None:
    submitted = stats["stored_ok"]
    requests = (
        stats["requests"]
        + len(stats["trial"])
        + len(stats["submit"])
        + len(stats["image"])
        + stats["finished"]
    )
    trials = 2 * args.pairs + 2
    flow = {
        "json": "JSON flow (a custom front end: one request per answer)",
        "page": "the shipped trial page with JavaScript (answer POST; next chart fetched ahead)",
    }[args.mode]
    print(
        f"participants        {args.participants} x {trials} trials ({args.pairs} pairs + 2 checks)"
    )
    print(f"mode                {flow}")
    if getattr(args, "fast_commit", False):
        print("commit              fast answer commit (synchronous_commit off for answers)")
    print(f"pacing              {pacing(args)}; arrivals over {args.ramp_s:g} s")
    print(f"server              {workers_of(args)}, PostgreSQL at {host}; {os.cpu_count()} CPUs")
    print(f"wall time           {wall:.1f} s")
    print(
        f"throughput          {submitted / wall:.1f} answers/s, {requests / wall:.0f} requests/s "
        f"({requests / max(submitted, 1):.2f} requests per answer)"
    )
    print(f"middle 80%          {middle(stats)}")
    print(f"answer latency      {latency(stats['submit'])}")
    if stats.get("submit_in_server"):
        print(
            f"  inside the server {latency(stats['submit_in_server'])} (its access log: the "
            "application's own time, not the wait for a free thread before it)"
        )
    if stats["image"]:
        print(f"chart GET           {latency(stats['image'])}")
    if stats.get("click_to_next"):
        print(
            f"click-to-next       {latency(stats['click_to_next'])} (the reply, and the next "
            "chart unless it was fetched ahead)"
        )
    for line in stats.get("bursts", ()):
        print(line)
    start = stats["start"]
    print(f"session start       {latency(start)}")
    print(
        f"machine load        {load_before:.1f} before, {os.getloadavg()[0]:.1f} after "
        "(1-min load average; other processes on the machine skew the figures)"
    )
    print(
        f"server CPU          {server_cpu:.1f} s: {server_cpu / max(submitted, 1) * 1000:.2f} ms "
        f"per answer (the web server only; this client {client_cpu:.1f} s, over {wall:.0f} s x "
        f"{os.cpu_count()} CPUs)"
    )
    if postgres_cpu is not None:
        print(
            f"PostgreSQL CPU      {postgres_cpu:.1f} s: {postgres_cpu / max(submitted, 1) * 1000:.2f} ms "
            "per answer (the bench database's backends, read every second)"
        )
    print(
        f"answers             submitted {submitted}, stored {stored}, duplicates {stats['duplicates']}"
    )
    print(
        f"sessions            completed {completed} of {args.participants}, finished {stats['finished']}"
    )
