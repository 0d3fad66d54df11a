"""What a classroom's burst costs: the CPU spent while a tick's answers drain.

In a lockstep run (``bench_participants.py --lockstep-s``) every participant answers at
the same tick, and the answer's p95 is about as long as the machine takes to work
through the whole burst. The run's CPU per answer also counts session starts, chart
fetches and idle time between ticks; this measures each burst alone: the web server's,
PostgreSQL's and this client's CPU from just before a tick until its last answer came
back, divided by the answers of that tick, and how long the burst took to drain. The
sum of the three per answer, times the answers of a tick, over the machine's CPUs, is
the shortest a burst can be.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import time
from dataclasses import dataclass, field

from bench.participants_server import PostgresCpu, process_group_cpu

LEAD_S = 0.05  # the window opens this long before the tick
LONGEST_S = 3.0  # a burst not drained by then is cut off (and said to be)


@dataclass
class Burst:
    answers: int
    drain_s: float
    web_cpu: float
    postgres_cpu: float
    client_cpu: float
    complete: bool


@dataclass
class BurstMeter:
    server_pid: int
    postgres: PostgresCpu
    expected: int  # answers per tick: one per participant
    answered_at: list  # appended to by the participants as each answer's reply comes back
    bursts: list[Burst] = field(default_factory=list)

    async def run(self, first_tick: float, interval: float, ticks: int) -> None:
        """Measure ``ticks`` bursts, the first at loop time ``first_tick``."""
        loop = asyncio.get_running_loop()
        for step in range(ticks):
            tick = first_tick + step * interval
            await asyncio.sleep(max(0.0, tick - LEAD_S - loop.time()))
            before = self._sample()
            answered_before = len(self.answered_at)
            await asyncio.sleep(max(0.0, tick - loop.time()))
            started = time.perf_counter()
            while len(self.answered_at) - answered_before < self.expected:
                if loop.time() > tick + LONGEST_S:
                    break
                await asyncio.sleep(0.002)
            drained = (self.answered_at[-1] if self.answered_at else started) - started
            after = self._sample()
            answers = len(self.answered_at) - answered_before
            if answers:
                self.bursts.append(
                    Burst(
                        answers=answers,
                        drain_s=max(drained, 0.0),
                        web_cpu=after[0] - before[0],
                        postgres_cpu=_postgres_delta(before[1], after[1]),
                        client_cpu=after[2] - before[2],
                        complete=answers >= self.expected,
                    )
                )

    def _sample(self) -> tuple[float, dict, float]:
        # This process's clock first: the /proc reads after it are not the client's load.
        client = time.process_time()
        return process_group_cpu(self.server_pid), self.postgres.read(), client

    def report_lines(self, cpus: int | None = None) -> list[str]:
        """The bursts' figures as report lines (none without a measured burst)."""
        if not self.bursts:
            return []
        cpus = cpus or os.cpu_count() or 1
        answers = sum(b.answers for b in self.bursts)

        def per_answer(name: str) -> float:
            return sum(getattr(b, name) for b in self.bursts) / answers * 1000

        web, pg, client = (
            per_answer("web_cpu"),
            per_answer("postgres_cpu"),
            per_answer("client_cpu"),
        )
        drains = [b.drain_s * 1000 for b in self.bursts]
        floor = (web + pg + client) * answers / len(self.bursts) / cpus
        cut = sum(not b.complete for b in self.bursts)
        lines = [
            f"bursts              {len(self.bursts)} ticks, {answers / len(self.bursts):.0f} answers "
            f"each: drained in p50 {statistics.median(drains):.0f} ms, max {max(drains):.0f} ms"
            + (f" ({cut} not drained within {LONGEST_S:g} s)" if cut else ""),
            f"  CPU per answer    web server {web:.2f} ms, PostgreSQL {pg:.2f} ms, this client "
            f"{client:.2f} ms: a burst needs at least {floor:.0f} ms on {cpus} CPUs",
        ]
        return lines


def _postgres_delta(before: dict, after: dict) -> float:
    # A backend that ended within the window is not counted (its last figure is gone; one
    # that ended while being read reads 0).
    return sum(cpu - before.get(pid, 0.0) for pid, cpu in after.items() if cpu)
