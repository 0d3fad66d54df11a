"""The randomized, balanced trial order of a within-subject chart study.

Pure: no Django import, so the design can be checked and audited on its own.

Every participant sees both charts of every pair. Three properties hold:

* **Balance across participants.** Participants are numbered 1, 2, 3, ... in
  the order they start. Numbers 2k-1 and 2k form a block: the first member of
  the block gets a random half of the pairs manipulated-first (drawn from the
  study seed and the block number), the second member the complementary half.
  So after any number N of participants, each pair was shown manipulated-first
  to floor(N/2) or ceil(N/2) of them: half, within one.
* **Balance within a participant.** Each participant has floor(P/2) or
  ceil(P/2) of their P pairs manipulated-first.
* **Spacing.** The two charts of a pair are never adjacent: at least
  ``min_gap`` other trials (charts or attention checks) lie between them. That
  is always possible when ``min_gap < P``: all first members, then all second
  members in the same order, puts P - 1 trials between the members of a pair.

Attention checks go to their configured 1-based positions, or to random
positions spread evenly over the study (one per equal stretch).

Everything is drawn from :class:`random.Random` instances seeded by SHA-256 of
the study seed and the participant number, so the order of any session can be
recomputed from the two numbers and compared with what was stored.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass

CHART = "chart"
CHECK = "check"

# Attempts of the randomized construction before the always-valid layout is used;
# in practice the first attempt succeeds.
_MAX_ATTEMPTS = 50


class OrderError(ValueError):
    """The study's design cannot be laid out (e.g. the gap is too large for the pairs)."""


@dataclass(frozen=True)
class CheckSlot:
    """An attention check and where it should go (1-based position, or None for random)."""

    id: int
    position: int | None = None


@dataclass(frozen=True)
class OrderItem:
    """One trial: a chart of a pair (``ref`` is the pair id) or an attention check."""

    kind: str
    ref: int
    manipulated: bool = False

    def as_json(self) -> dict:
        if self.kind == CHECK:
            return {"kind": CHECK, "check": self.ref}
        return {"kind": CHART, "pair": self.ref, "version": 2 if self.manipulated else 1}

    @classmethod
    def from_json(cls, data: dict) -> OrderItem:
        if data["kind"] == CHECK:
            return cls(CHECK, int(data["check"]))
        return cls(CHART, int(data["pair"]), int(data["version"]) == 2)


@dataclass(frozen=True)
class TrialOrder:
    seed: int
    participant_number: int
    items: tuple[OrderItem, ...]

    @property
    def manipulated_first(self) -> frozenset[int]:
        """Pair ids whose manipulated chart comes first."""
        seen: set[int] = set()
        first: set[int] = set()
        for item in self.items:
            if item.kind == CHART and item.ref not in seen:
                seen.add(item.ref)
                if item.manipulated:
                    first.add(item.ref)
        return frozenset(first)

    def as_json(self) -> list[dict]:
        return [item.as_json() for item in self.items]


def derive_seed(study_seed: int, *parts) -> int:
    """A 63-bit seed from the study seed and labels; stable across runs and Python versions."""
    text = ":".join(str(p) for p in (study_seed, *parts))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def max_gap(pair_count: int) -> int:
    """The largest minimum gap a study with ``pair_count`` pairs can guarantee."""
    return max(pair_count - 1, 0)


def manipulated_first(
    pair_ids: Sequence[int], *, study_seed: int, participant_number: int
) -> frozenset[int]:
    """Pairs shown manipulated-first to this participant (see the module docstring)."""
    if participant_number < 1:
        raise OrderError("Participant numbers start at 1.")
    pairs = sorted(set(pair_ids))
    block, member = divmod(participant_number - 1, 2)
    rng = random.Random(derive_seed(study_seed, "block", block))
    half = len(pairs) // 2
    if len(pairs) % 2 and rng.random() < 0.5:
        half += 1
    chosen = frozenset(rng.sample(pairs, half))
    return chosen if member == 0 else frozenset(pairs) - chosen


def check_positions(checks: Sequence[CheckSlot], total: int, rng: random.Random) -> dict[int, int]:
    """0-based position -> check id. Fixed positions first; the rest spread over the gaps."""
    taken: dict[int, int] = {}
    for check in checks:
        if check.position is None:
            continue
        pos = min(max(check.position, 1), total) - 1
        # Two checks configured for one position: the later one takes the next free place.
        while pos in taken:
            pos = (pos + 1) % total
        taken[pos] = check.id
    floating = [c for c in checks if c.position is None]
    if floating:
        free = [p for p in range(total) if p not in taken]
        # A check as the very first trial reads like part of the instructions; avoid it when possible.
        if len(free) > len(floating) and free[0] == 0:
            free = free[1:]
        n = len(floating)
        for i, check in enumerate(floating):
            stretch = free[i * len(free) // n : (i + 1) * len(free) // n]
            taken[rng.choice(stretch)] = check.id
    return taken


def _spaced_sequence(
    pairs: list[int], slots: list[int], gap: int, rng: random.Random
) -> list[int] | None:
    """Pair ids per slot, each twice, members more than ``gap`` positions apart.

    Each slot takes, uniformly at random, one of the charts allowed there: a
    pair not started yet, or the second chart of a pair whose first chart is
    far enough back. A pair is started no later than leaves room for its
    second chart, which keeps the walk out of dead ends; None if one is met.
    """
    unplaced = list(pairs)
    rng.shuffle(unplaced)
    pending: dict[int, int] = {}  # pair id -> position of its first chart
    sequence: list[int] = []
    last = len(slots) - 1
    for index, position in enumerate(slots):
        ready = [p for p, at in pending.items() if position - at > gap]
        must_start = unplaced and index + len(unplaced) + gap >= last
        if must_start or (unplaced and rng.randrange(len(unplaced) + len(ready)) < len(unplaced)):
            pair = unplaced.pop()
            pending[pair] = position
        elif ready:
            pair = rng.choice(ready)
            del pending[pair]
        else:
            return None
        sequence.append(pair)
    return sequence if not pending and not unplaced else None


def _blocked_sequence(pairs: list[int], rng: random.Random) -> list[int]:
    order = list(pairs)
    rng.shuffle(order)
    return order + order


def build_order(
    *,
    pair_ids: Sequence[int],
    checks: Sequence[CheckSlot] = (),
    study_seed: int,
    participant_number: int,
    min_gap: int = 1,
) -> TrialOrder:
    """The full trial order of one participant, reproducible from the study seed and number."""
    pairs = sorted(set(pair_ids))
    if len(pairs) != len(pair_ids):
        raise OrderError("A pair appears twice in the study.")
    if min_gap < 1:
        raise OrderError("The minimum gap between the two charts of a pair is at least 1.")
    if pairs and min_gap > max_gap(len(pairs)):
        raise OrderError(
            f"A gap of {min_gap} needs at least {min_gap + 1} pairs; the study has {len(pairs)}."
        )
    seed = derive_seed(study_seed, "participant", participant_number)
    rng = random.Random(seed)
    first = manipulated_first(pairs, study_seed=study_seed, participant_number=participant_number)

    total = 2 * len(pairs) + len(checks)
    if total == 0:
        return TrialOrder(seed, participant_number, ())
    placed_checks = check_positions(checks, total, rng)
    slots = [p for p in range(total) if p not in placed_checks]

    sequence = None
    for _ in range(_MAX_ATTEMPTS):
        sequence = _spaced_sequence(pairs, slots, min_gap, rng)
        if sequence is not None:
            break
    if sequence is None:
        sequence = _blocked_sequence(pairs, rng)

    items: list[OrderItem] = []
    seen: set[int] = set()
    by_slot = dict(zip(slots, sequence, strict=True))
    for position in range(total):
        if position in placed_checks:
            items.append(OrderItem(CHECK, placed_checks[position]))
            continue
        pair = by_slot[position]
        is_first = pair not in seen
        seen.add(pair)
        # The first member shown is the manipulated chart exactly for the chosen pairs.
        items.append(OrderItem(CHART, pair, manipulated=(pair in first) == is_first))
    return TrialOrder(seed, participant_number, tuple(items))


def order_violations(order: TrialOrder, *, min_gap: int) -> list[str]:
    """What is wrong with an order (an empty list when it is valid); used by tests and audits."""
    problems = []
    where: dict[int, list[tuple[int, bool]]] = {}
    for position, item in enumerate(order.items):
        if item.kind == CHART:
            where.setdefault(item.ref, []).append((position, item.manipulated))
    for pair, seen in where.items():
        if len(seen) != 2 or {m for _, m in seen} != {True, False}:
            problems.append(f"pair {pair} is not shown exactly once in each version")
        elif seen[1][0] - seen[0][0] <= min_gap:
            problems.append(f"pair {pair} members are {seen[1][0] - seen[0][0]} apart")
    return problems
