"""The load benches under bench/ run as the README says, on a fresh PostgreSQL database.

They are what the capacity figures in the README come from, and nothing else runs them:
a bench that no longer starts (a changed page, a server option, a response it cannot
read) would only be found by the next person measuring. Each runs here at a tiny size
(a few participants or annotators, seconds) and must end with its own check that what
was stored is exactly what was submitted.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest

pytestmark = pytest.mark.postgres

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def bench_database():
    """The URL of a new, empty database on the suite's PostgreSQL server, dropped after."""
    server = urlsplit(os.environ["DATABASE_URL"])
    name = f"chartroom_bench_check_{uuid.uuid4().hex[:12]}"
    admin = urlunsplit(server._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    yield urlunsplit(server._replace(path=f"/{name}"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def run_bench(script: str, database_url: str, *args: str) -> str:
    # The embedded job runner, not the suite's broker: the bench's jobs are its own.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CHARTROOM_", "CELERY_"))}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    env["DATABASE_URL"] = database_url
    done = subprocess.run(
        [sys.executable, f"bench/{script}", *args], cwd=ROOT, env=env, capture_output=True,
        text=True, timeout=240,
    )  # fmt: skip
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    return output


def test_the_participant_bench_drives_the_trial_page_and_counts_every_answer(bench_database):
    output = run_bench(
        "bench_participants.py", bench_database,
        "--mode", "page", "--participants", "3", "--pairs", "2", "--think-ms", "0",
        "--server-times",
    )  # fmt: skip
    assert "answers             submitted 18, stored 18, duplicates 0" in output
    assert "result              OK: stored == submitted" in output
    assert "answer latency      p50" in output and "server CPU" in output
    # Every answer's time inside the server, read from its access log.
    assert "  inside the server p50" in output and "nan" not in output

    # A classroom: everyone answers at each tick; each tick's burst is measured alone.
    output = run_bench(
        "bench_participants.py", bench_database,
        "--mode", "page", "--participants", "3", "--pairs", "2", "--lockstep-s", "0.6",
        "--ramp-s", "0.3",
    )  # fmt: skip
    assert "result              OK: stored == submitted" in output
    bursts = next(line for line in output.splitlines() if line.startswith("bursts "))
    # Six ticks (2 pairs + 2 checks); how their answers fall into windows is the machine's.
    assert re.search(r"bursts +6 ticks, \d+ answers each: drained in p50 \d+ ms", bursts), bursts
    cpu = next(line for line in output.splitlines() if "CPU per answer    web server" in line)
    assert re.search(r"web server [\d.]+ ms, PostgreSQL [\d.]+ ms, this client [\d.]+ ms", cpu)


def test_the_annotation_bench_fills_every_item_to_k_and_no_further(bench_database):
    output = run_bench(
        "bench_annotation_queue.py", bench_database,
        "--items", "12", "--annotators", "3", "--k", "2",
    )  # fmt: skip
    assert "OK   stored 24 label sets, submitted 24 (equal)" in output
    assert "exactly k=2: 12/12, over k: 0" in output
    assert "Throughput:" in output


def test_the_side_by_side_bench_serves_two_checkouts_and_removes_them(bench_database):
    output = run_bench(
        "ab_servers.py", bench_database, "HEAD", "HEAD", "--participants", "4", "--pairs", "2",
        "--rounds", "2",
    )  # fmt: skip
    rounds = [line for line in output.splitlines() if line.startswith("round ")]
    assert len(rounds) == 2 and all("stored == sent" in line for line in rounds), output
    # The two places are swapped between rounds.
    assert "(A took the even" in rounds[0] and "(B took the even" in rounds[1]
    assert re.search(r"A [\d.]+ ms/answer  B [\d.]+ ms/answer  B/A [\d.]+", rounds[0])
    assert re.search(r"median B/A +[\d.]+ over 2 rounds", output)
    assert "result              OK: stored == submitted" in output
    worktrees = subprocess.run(
        ["git", "worktree", "list"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert "chartroom-ab-trees" not in worktrees


def test_the_answer_split_reaches_every_stage_and_adds_up(bench_database):
    output = run_bench(
        "profile_participant_request.py", bench_database, "--sessions", "2", "--pairs", "2",
        "--split",
    )  # fmt: skip
    lines = output[output.index("CPU per answer by stage") :].splitlines()[1:]
    stages = {line.rsplit(None, 1)[0].strip(): float(line.rsplit(None, 1)[1]) for line in lines}
    assert len(stages) == 13, output
    # Each timed function was reached on the answer path, and nothing is counted twice:
    # what a stage spent outside its timed parts is never negative.
    assert all(value > 0 for value in stages.values()), output
    parts = ("middleware, handler, test client", "the view")
    assert abs(sum(stages[p] for p in parts) - stages["whole answer request"]) < 0.01
    # The database's own CPU for the answers, read from its backend's /proc entry.
    assert "PostgreSQL: " in output and " ms CPU per answer (its backend" in output, output


def test_a_burst_report_adds_the_three_parts_and_skips_a_backend_that_ended():
    from bench.classroom_bursts import Burst, BurstMeter, _postgres_delta

    # A backend that ended while it was read (0) or before (absent) adds nothing.
    assert _postgres_delta({1: 2.0, 2: 5.0}, {1: 2.5, 2: 0.0, 3: 0.25}) == 0.75
    meter = BurstMeter(server_pid=0, postgres=None, expected=200, answered_at=[])
    meter.bursts = [
        Burst(200, 0.40, web_cpu=0.6, postgres_cpu=0.2, client_cpu=0.1, complete=True),
        Burst(100, 3.00, web_cpu=0.3, postgres_cpu=0.1, client_cpu=0.02, complete=False),
    ]
    bursts, cpu = meter.report_lines(cpus=2)
    assert "2 ticks, 150 answers each: drained in p50 1700 ms, max 3000 ms" in bursts
    assert "(1 not drained within 3 s)" in bursts
    # 0.9 s web, 0.3 s database, 0.12 s client over 300 answers; 150 a tick on 2 CPUs.
    assert "web server 3.00 ms, PostgreSQL 1.00 ms, this client 0.40 ms" in cpu
    assert "a burst needs at least 330 ms on 2 CPUs" in cpu
