"""What researchers read about a project: overall, per annotator and per item progress."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django.db.models import Avg, Count, Prefetch, Q, Sum
from django.http import Http404
from django.utils import timezone

from annotation.models import Assignment, Item, LabelSet, Project, ProjectMember
from annotation.selectors.overlap import overlap_budget

State = Assignment.State


@dataclass(frozen=True)
class Overview:
    items: int
    complete: int
    label_sets: int
    needed: int
    open_leases: int
    members: int
    # Adaptive overlap: label sets the policy may still ask for at most (= needed for fixed k).
    possible: int = 0
    growing: int = 0
    pay_per_item: Decimal = Decimal(0)

    @property
    def pay_committed(self) -> Decimal:
        return self.needed * self.pay_per_item

    @property
    def pay_possible(self) -> Decimal:
        return self.possible * self.pay_per_item

    @property
    def percent(self) -> int:
        return round(100 * self.label_sets / self.needed) if self.needed else 0


def settled_items(project: Project) -> Q:
    """Items the overlap policy wants nothing more of."""
    overlap = project.overlap()
    if not overlap.adaptive:
        return Q(submitted_count__gte=overlap.k)
    return Q(submitted_count__gte=overlap.k_min, disputed=False) | Q(
        submitted_count__gte=overlap.k_max
    )


def project_overview(project: Project) -> Overview:
    """Counts for the project page; with adaptive overlap, ``needed`` is what is committed."""
    k = project.annotators_per_item
    items = Item.objects.filter(project=project).aggregate(
        items=Count("pk"),
        complete=Count("pk", filter=settled_items(project)),
        label_sets=Sum("submitted_count"),
    )
    budget = overlap_budget(project) if project.overlap().adaptive else None
    # Label sets on control items are spent too, outside the overlap policy's budget.
    controls = (items["label_sets"] or 0) - budget.submitted if budget else 0
    open_count = Assignment.objects.filter(
        project=project, state=State.LEASED, expires_at__gt=timezone.now()
    ).count()
    return Overview(
        items=items["items"],
        complete=items["complete"],
        label_sets=items["label_sets"] or 0,
        needed=budget.committed + controls if budget else items["items"] * k,
        open_leases=open_count,
        members=ProjectMember.objects.filter(project=project).count(),
        possible=budget.possible + controls if budget else items["items"] * k,
        growing=budget.growing if budget else items["items"] - items["complete"],
        pay_per_item=project.pay_per_item,
    )


@dataclass(frozen=True)
class AnnotatorRow:
    username: str
    user_id: int
    joined_at: object
    done: int
    skipped: int
    expired: int
    in_hand: int
    active_seconds: float
    mean_seconds: float | None


def annotator_rows(project: Project) -> list[AnnotatorRow]:
    """Every member with their counts, most productive first."""
    now = timezone.now()
    stats = {
        row["annotator"]: row
        for row in Assignment.objects.filter(project=project)
        .values("annotator")
        .annotate(
            done=Count("pk", filter=Q(state=State.SUBMITTED)),
            skipped=Count("pk", filter=Q(state=State.SKIPPED)),
            expired=Count("pk", filter=Q(state=State.EXPIRED)),
            in_hand=Count("pk", filter=Q(state=State.LEASED, expires_at__gt=now)),
            seconds=Sum("active_seconds", filter=Q(state=State.SUBMITTED)),
            mean=Avg("active_seconds", filter=Q(state=State.SUBMITTED)),
        )
        .order_by()
    }
    rows = []
    for member in ProjectMember.objects.filter(project=project).select_related("annotator"):
        s = stats.get(member.annotator_id, {})
        rows.append(
            AnnotatorRow(
                username=member.annotator.username,
                user_id=member.annotator_id,
                joined_at=member.joined_at,
                done=s.get("done", 0),
                skipped=s.get("skipped", 0),
                expired=s.get("expired", 0),
                in_hand=s.get("in_hand", 0),
                active_seconds=float(s.get("seconds") or 0.0),
                mean_seconds=s.get("mean"),
            )
        )
    rows.sort(key=lambda r: (-r.done, r.username))
    return rows


def open_leases(project: Project):
    """Open leases (including ones past their time that the queue has not reclaimed yet)."""
    return (
        Assignment.objects.filter(project=project, state=State.LEASED)
        .select_related("annotator", "item")
        .order_by("expires_at")
    )


def item_page(project: Project, *, split: str = "", status: str = ""):
    """Items with their holders, for the per-item progress table (paginate the result)."""
    items = Item.objects.filter(project=project)
    if split:
        items = items.filter(split=split)
    settled = settled_items(project)
    if status == "complete":
        items = items.filter(settled)
    elif status == "open":
        items = items.exclude(settled)
    elif status == "in_progress":
        items = items.filter(filled_count__gt=0).exclude(settled)
    holders = Prefetch(
        "assignments",
        queryset=Assignment.objects.filter(state__in=Assignment.FINAL)
        .select_related("annotator")
        .order_by("slot"),
    )
    return items.prefetch_related(holders).select_related("reference").order_by("position", "pk")


def researcher_item(project: Project, pk: int) -> Item:
    item = (
        Item.objects.filter(project=project, pk=pk)
        .select_related("reference", "import_batch")
        .prefetch_related(
            Prefetch(
                "assignments",
                queryset=Assignment.objects.select_related("annotator").order_by("leased_at"),
            ),
            Prefetch(
                "label_sets", queryset=LabelSet.objects.select_related("annotator").order_by("pk")
            ),
        )
        .first()
    )
    if item is None:
        raise Http404("No such item.")
    return item
