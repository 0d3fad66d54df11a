"""The annotation queue's assignment rule, apart from its locking. No Django.

Plain facts in, decisions out. Which open item an annotator gets next (the
candidates' order), whether it is a control or an ordinary item, which slot on
it is free, and how the controls are spread are decided here, so they can be read and
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

import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
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


def choose(
    *,
    control_due: bool = False,
    ordinary: T | None,
    control: T | None,
    controls_left: int | None = None,
    ordinary_left: int = 0,
    rng: random.Random | None = None,
) -> Choice[T]:
    """Lease the control when one is drawn and one is free, the ordinary candidate otherwise.

    The adapter looks up (and locks) both candidates on every request, whichever
    is wanted, so a control costs the same statements as an ordinary item. With
    no control left to give, the annotator gets ordinary work rather than none.

    ``controls_left`` (c, ``controls_ahead``; None: no such bound, ``control_due``
    decides) and ``ordinary_left`` (the ordinary items still open to the
    annotator, the same count) make the next item a control with probability
    c / (ordinary_left + c), drawn from ``rng``. Each step keeps "items left"
    exact (a control lowers c, an ordinary item ordinary_left), and the draws
    place the c controls uniformly among the items left: any position is as
    likely a control as any other, so neither the last items nor a run of them
    give controls away. An ordinary item that is only held by others right now
    does not turn the draw into a control: the adapter looks again.
    """
    if controls_left is not None:
        total = ordinary_left + controls_left
        draw = (rng or random.SystemRandom()).random()
        control_due = controls_left >= 1 and draw * total < controls_left
    if control_due and control is not None:
        return Choice(control, True)
    return Choice(ordinary, False)


def _rate(rate: float) -> Fraction:
    # Exact, so that the count below moves by exactly one per item.
    return Fraction(str(rate))


def controls_ahead(*, taken: int, given: int, rate: float, ordinary_left: int, unseen: int) -> int:
    """How many more control items an annotator gets before the queue runs dry for them.

    The controls make up ``rate`` of every item they will have had: with T = taken +
    ordinary_left and c controls still to come, (given + c) = rate (T + c), so
    c = (rate T - given) / (1 - rate), rounded down, at most the ``unseen`` controls
    they can still get. Leasing an ordinary item leaves T (and c) as they are;
    leasing a control lowers c by exactly one. So "items left" (ordinary_left + c)
    drops by one with each item, whichever kind it was, and the queue (``choose``)
    gives controls only while c >= 1, spread evenly over the items left.
    """
    if rate <= 0 or unseen <= 0:
        return 0
    share = _rate(rate)
    if share >= 1:
        return unseen
    ahead = (share * (taken + ordinary_left) - given) / (1 - share)
    return max(0, min(unseen, math.floor(ahead)))


@dataclass(frozen=True)
class SlotRow:
    """An assignment already on the item: its slot, whether it still holds it, and whether
    its label set is in."""

    slot: int
    holding: bool
    submitted: bool = False


def _lowest_free(slots: Iterable[int], rows: Sequence[SlotRow]) -> int | None:
    taken = {row.slot for row in rows if row.holding}
    return next((slot for slot in slots if slot not in taken), None)


def free_slot(*, per_item: int, rows: Sequence[SlotRow], control: bool) -> int | None:
    """The slot a new holder takes on an item, or None when all k are held.

    Ordinary items have slots 0..k-1 and a new holder takes the lowest free one
    (the unique constraint on (item, slot) among holders makes a race an error,
    not a k+1-th label set). Any number of annotators label a control: its slots
    past k count as ordinary items of k slots each, one after another, and a new
    holder takes the lowest free slot past k, so a lapsed lease's slot on a
    control is taken over just as on an ordinary item (``take_back_slot``).
    """
    if control:
        return _lowest_free(range(per_item, per_item + len(rows) + 1), rows)
    return _lowest_free(range(per_item), rows)


# --- overlap: how many label sets an item wants ---------------------------------------------------

FIXED, ADAPTIVE = "fixed", "adaptive"
DISAGREEMENT, CONFIDENCE = "disagreement", "confidence"
# The adaptive policy's defaults. bench/bench_adaptive_overlap.py (Dawid-Skene,
# CHOCOLATE-like captions, README) found that the disagreement rule and a
# threshold of 0.1 spend more label sets than exactly k = 3, while 0.3 spends
# about 10% fewer at a higher accuracy: one uncertain sentence x category cell
# of about 31 sends a whole caption to another annotator, so a tight threshold
# grows nearly every item.
DEFAULT_RULE = CONFIDENCE
DEFAULT_THRESHOLD = 0.3


@dataclass(frozen=True)
class Overlap:
    """A project's overlap policy: exactly ``k`` label sets per item, or adaptive.

    Adaptive: every item gets ``k_min``; an item its label sets leave undecided
    by ``rule`` gets one more at a time, up to ``k_max``. ``disagreement``: the
    label sets differ on any category of any sentence. ``confidence``: the
    aggregation model's posterior of any sentence/category lies strictly between
    ``threshold`` and ``1 - threshold``.
    """

    policy: str = FIXED
    k: int = 3
    k_min: int = 2
    k_max: int = 4
    rule: str = DEFAULT_RULE
    threshold: float = DEFAULT_THRESHOLD

    @property
    def adaptive(self) -> bool:
        return self.policy == ADAPTIVE

    @property
    def floor(self) -> int:
        """Label sets every item gets."""
        return self.k_min if self.adaptive else self.k

    @property
    def ceiling(self) -> int:
        """Label sets an item may get at most: its ordinary slots."""
        return self.k_max if self.adaptive else self.k


def wants_more(overlap: Overlap, *, filled: int, submitted: int, disputed: bool) -> bool:
    """Whether an ordinary item takes another holder now (the queue's filter, as a predicate).

    ``filled`` counts open leases and submitted label sets, ``disputed`` whether
    the submitted ones leave the item undecided. Past ``k_min`` a disputed item
    waits until its open leases are in (``filled == submitted``): the rule is
    asked again after each label set, so an item the next one settles gets no
    extra holder meanwhile.
    """
    if filled < overlap.floor:
        return True
    if not overlap.adaptive:
        return False
    return disputed and filled == submitted and filled < overlap.k_max


def may_hold(
    overlap: Overlap, *, control: bool, filled: int, submitted: int, disputed: bool
) -> bool:
    """Whether an item takes one more holder on a new lease (a lapsed one: ``take_back_slot``).

    Any number of annotators label a control; an ordinary item only while the
    overlap policy wants more (``wants_more``), so it never gets more label sets
    than its overlap, however late one arrives.
    """
    return control or wants_more(overlap, filled=filled, submitted=submitted, disputed=disputed)


def take_back_slot(
    overlap: Overlap,
    *,
    rows: Sequence[SlotRow],
    slot: int,
    control: bool,
    filled: int,
    submitted: int,
    disputed: bool,
) -> int | None:
    """The slot a lapsed lease (on ``slot``) takes back for its annotator, or None when refused.

    An ordinary item takes its annotator back while it would take a new holder
    (``may_hold``) and a slot is free. A control would take anyone, so a late
    label set always kept there would tell a control from an ordinary item after
    the fact: the control's k slots the lease was in (``free_slot``'s groups) are
    judged as an ordinary item is, by their own holders, so the same situation
    (nobody took the place over, or somebody did and it is full) has the same outcome.
    """
    k = overlap.ceiling
    if control:
        first = k + max(slot - k, 0) // k * k
        rows = [row for row in rows if first <= row.slot < first + k]
        filled = sum(row.holding for row in rows)
        submitted = sum(row.holding and row.submitted for row in rows)
        free = _lowest_free(range(first, first + k), rows)
    else:
        free = free_slot(per_item=k, rows=rows, control=False)
    if free is None:
        return None
    wanted = wants_more(overlap, filled=filled, submitted=submitted, disputed=disputed)
    return free if wanted else None


def left_to_collect(overlap: Overlap, *, submitted: int, disputed: bool) -> tuple[int, int]:
    """Label sets an item still wants: (committed, possible at most).

    Committed: what the policy surely asks for (up to ``k_min``, or one more for
    a disputed item); possible: up to ``k_max`` for every item not yet settled.
    Fixed k: both are what is missing to k.
    """
    if not overlap.adaptive:
        missing = max(overlap.k - submitted, 0)
        return missing, missing
    if submitted < overlap.k_min:
        return overlap.k_min - submitted, overlap.k_max - submitted
    if disputed and submitted < overlap.k_max:
        return 1, overlap.k_max - submitted
    return 0, 0


def labels_differ(label_sets: Sequence[Sequence[Iterable[str]]]) -> bool:
    """Whether the label sets differ on any category of any sentence."""
    if len(label_sets) < 2:
        return False
    first = [frozenset(sentence) for sentence in label_sets[0]]
    return any([frozenset(s) for s in other] != first for other in label_sets[1:])


def uncertain(posteriors: Iterable[float], threshold: float) -> bool:
    """Whether any posterior lies strictly between ``threshold`` and ``1 - threshold``."""
    return any(threshold < p < 1 - threshold for p in posteriors)


def disputed(
    overlap: Overlap,
    label_sets: Sequence[Sequence[Iterable[str]]],
    posteriors: Iterable[float] = (),
) -> bool:
    """Whether an item's submitted label sets leave it undecided by the project's rule.

    Fewer than ``k_min`` label sets decide nothing yet (the item grows to
    ``k_min`` anyway), so they count as not disputed. ``posteriors`` are the
    aggregation model's, one per sentence and category, for the confidence rule.
    """
    if not overlap.adaptive or len(label_sets) < overlap.k_min:
        return False
    if overlap.rule == CONFIDENCE:
        return uncertain(posteriors, overlap.threshold)
    return labels_differ(label_sets)
