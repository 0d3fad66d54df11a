"""The overlap policy as queries: which items want another label set, and what is left to collect.

Both mirror the pure rule (annotation/assignment/strategy.py: ``wants_more``
and ``left_to_collect``) over the counters and the ``disputed`` flag that the
queue keeps on each item under its row lock, so the queue's locking query, the
annotator's "items left" and the researcher's budget read the same rule.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, F, Q

from annotation.assignment import strategy as rules
from annotation.models import Item, Project


def wanting_items(overlap: rules.Overlap) -> Q:
    """Items that take another holder now: ``rules.wants_more`` as a filter."""
    wanting = Q(filled_count__lt=overlap.floor)
    if overlap.adaptive:
        wanting |= Q(
            disputed=True,
            filled_count=F("submitted_count"),
            filled_count__lt=overlap.k_max,
        )
    return wanting


def wanting_sql(overlap: rules.Overlap, alias: str = "i") -> tuple[str, list]:
    """``wanting_items`` as an SQL condition on Item rows aliased ``alias`` (the queue's hot query).

    test_queue_query_counts.py checks that both forms pick the same items.
    """
    sql, params = f'{alias}."filled_count" < %s', [overlap.floor]
    if overlap.adaptive:
        sql += (
            f' OR ({alias}."disputed" AND {alias}."filled_count" = {alias}."submitted_count"'
            f' AND {alias}."filled_count" < %s)'
        )
        params.append(overlap.k_max)
    return sql, params


def growing_items(overlap: rules.Overlap) -> Q:
    """Items an annotator may still get: ``wanting_items`` plus disputed items waiting on a lease."""
    growing = Q(filled_count__lt=overlap.floor)
    if overlap.adaptive:
        growing |= Q(disputed=True, filled_count__lt=overlap.k_max)
    return growing


def growing_sql(overlap: rules.Overlap, alias: str = "i") -> tuple[str, list]:
    """``growing_items`` as an SQL condition on Item rows aliased ``alias``."""
    sql, params = f'{alias}."filled_count" < %s', [overlap.floor]
    if overlap.adaptive:
        sql += f' OR ({alias}."disputed" AND {alias}."filled_count" < %s)'
        params.append(overlap.k_max)
    return sql, params


@dataclass(frozen=True)
class Budget:
    """Label sets in, still committed, and possibly still wanted (ordinary items)."""

    items: int
    submitted: int
    committed_left: int
    possible_left: int
    growing: int  # items that may still get more label sets

    @property
    def committed(self) -> int:
        return self.submitted + self.committed_left

    @property
    def possible(self) -> int:
        return self.submitted + self.possible_left


def overlap_budget(project: Project) -> Budget:
    """``rules.left_to_collect`` summed over the ordinary items, in one query.

    Items are grouped by (submitted, disputed), at most a few dozen groups, so
    the rule is applied per group rather than per item.
    """
    overlap = project.overlap()
    groups = (
        Item.objects.filter(project=project, gold__isnull=True)
        .values("submitted_count", "disputed")
        .annotate(n=Count("pk"))
        .order_by()
    )
    items = submitted = committed = possible = growing = 0
    for group in groups:
        n, done = group["n"], group["submitted_count"]
        now, most = rules.left_to_collect(overlap, submitted=done, disputed=group["disputed"])
        items += n
        submitted += n * done
        committed += n * now
        possible += n * most
        growing += n if most else 0
    return Budget(items, submitted, committed, possible, growing)
