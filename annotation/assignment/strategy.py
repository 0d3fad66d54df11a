"""The annotation queue's assignment rule, apart from its locking. No Django.

Plain facts in, decisions out. Which open item an annotator gets next (the
candidates' order), whether it is a control or an ordinary item, which slot on
it is free, and when a control is due are decided here, so they can be read and
tested without a database. annotation/services/queue.py is the adapter: it
turns a strategy's order into the ORDER BY of its locking query (FOR UPDATE
SKIP LOCKED takes the first row in that order that no other request holds),
retries when a race is lost, and keeps the counters.

A strategy may only order by the facts on ``Candidate``: each one is a column
the adapter knows, so the database applies exactly the order ``sort_candidates``
applies here. A new fact needs a field here and a column in the adapter's map;
a new order wants an index on Item in that order (as ``item_queue_order`` is for
the default) so the locking query walks an index. The README says how to add one.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Candidate:
    """What a strategy knows about an open item (one short of k holders the annotator never had)."""

    pk: int
    filled: int = 0  # annotators holding it now: open leases and submitted label sets
    submitted: int = 0  # label sets submitted
    position: int = 0  # its place in the import


@dataclass(frozen=True)
class Key:
    """One step of an order: a ``Candidate`` field, largest first when ``descending``."""

    field: str
    descending: bool = False


# A fresh random order on every request (ORDER BY RANDOM()): nobody can predict it.
RANDOM = Key("?")
CANDIDATE_FIELDS = frozenset({"pk", "filled", "submitted", "position"})


@dataclass(frozen=True)
class Strategy:
    """A named assignment rule: the order of ordinary candidates and of control candidates."""

    name: str
    label: str
    order: tuple[Key, ...]
    control_order: tuple[Key, ...] = (RANDOM,)

    def __post_init__(self):
        for key in (*self.order, *self.control_order):
            if key is not RANDOM and key.field not in CANDIDATE_FIELDS:
                raise ValueError(f"{self.name}: cannot order by {key.field!r}.")
        if self.order and self.order[-1] not in (Key("pk"), RANDOM):
            # Ties broken by the primary key keep the choice deterministic on every database.
            raise ValueError(f"{self.name}: the order must end with the primary key.")


# Finish items before starting new ones: the item with most holders first, then
# the one with most label sets already in (its holders are further along), then
# import order. Complete items become data sooner, and a stopped project leaves
# few half-labelled items behind.
FULLEST_FIRST = Strategy(
    name="fullest_first",
    label="Fullest item first, then import order",
    order=(Key("filled", True), Key("submitted", True), Key("position"), Key("pk")),
)

STRATEGIES = {strategy.name: strategy for strategy in (FULLEST_FIRST,)}
DEFAULT = FULLEST_FIRST


def sort_candidates(
    candidates: Iterable[Candidate], order: Sequence[Key], *, rng: random.Random | None = None
) -> list[Candidate]:
    """The candidates in ``order``: the sequence the adapter's query walks through."""
    ranked = list(candidates)
    # Stable sorts from the last key to the first give the lexicographic order.
    for key in reversed(order):
        if key is RANDOM:
            (rng or random.SystemRandom()).shuffle(ranked)
        else:
            ranked.sort(key=lambda c, f=key.field: getattr(c, f), reverse=key.descending)
    return ranked


@dataclass(frozen=True)
class Choice(Generic[T]):
    item: T | None
    control: bool


def choose(*, control_due: bool, ordinary: T | None, control: T | None) -> Choice[T]:
    """Lease the control when one is due and one is free, the ordinary candidate otherwise.

    The adapter looks up (and locks) both candidates on every request, whichever
    is wanted, so a control costs the same statements as an ordinary item. With
    no control left to give, the annotator gets ordinary work rather than none.
    """
    if control_due and control is not None:
        return Choice(control, True)
    return Choice(ordinary, False)


@dataclass(frozen=True)
class SlotRow:
    """An assignment already on the item: its slot and whether it still holds it."""

    slot: int
    holding: bool


def free_slot(*, per_item: int, rows: Sequence[SlotRow], control: bool) -> int | None:
    """The slot a new holder takes on an item, or None when all k are held.

    Ordinary items have slots 0..k-1 and a new holder takes the lowest free one
    (the unique constraint on (item, slot) among holders makes a race an error,
    not a k+1-th label set). Any number of annotators label a control, so each
    gets a slot past k that no row of the item has used yet.
    """
    if control:
        return per_item + len(rows)
    taken = {row.slot for row in rows if row.holding}
    free = [slot for slot in range(per_item) if slot not in taken]
    return free[0] if free else None


def control_due(*, taken: int, given: int, rate: float, draw: float) -> bool:
    """Whether the next item an annotator gets should be a control item.

    ``taken`` items leased so far, ``given`` of them controls, ``draw`` uniform
    in [0, 1). A random draw keeps controls unpredictable; the bounds keep the
    share within about one item of ``rate`` over any stretch, so a run of luck
    neither floods an annotator with controls nor leaves them unchecked.
    """
    if rate <= 0:
        return False
    expected = (taken + 1) * rate
    if given + 1 > expected + 1:
        return False
    if expected - given >= 2:
        return True
    return draw < rate
