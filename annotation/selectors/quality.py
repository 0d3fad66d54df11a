"""Reads for quality control: what counts as data, the funnel, answers beside gold.

``counted_label_sets``, ``label_set_flags`` and ``annotator_states`` are what
agreement, aggregation and exports use to decide whose labels are data.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Exists, OuterRef, Q

from annotation.models import (
    Assignment,
    GoldItem,
    Item,
    LabelSet,
    Project,
    ProjectMember,
    Qualification,
    QualificationRound,
    QualityPolicy,
    RoundAttempt,
)
from annotation.selectors.attempts import attempt_gold

State, Work = Qualification.State, Qualification.Work


def _round_membership(**match):
    """Rows tying a gold item to a qualification round; gold in a round is never a control."""
    return QualificationRound.gold_items.through.objects.filter(**match)


def control_items(project: Project):
    """Gold items usable as controls: every gold item outside the qualification rounds."""
    return GoldItem.objects.filter(project=project).filter(
        ~Exists(_round_membership(golditem_id=OuterRef("pk")))
    )


def control_rate(policy: QualityPolicy | None) -> float:
    """The share of control items: the policy's, or the default while a project has no policy row.

    The queue and "items left" both read it here, so the two never count with different rates.
    """
    if policy is not None:
        return policy.control_rate
    return QualityPolicy._meta.get_field("control_rate").default


def unseen_controls(*, project: Project, annotator):
    """Control items (gold outside the rounds) this annotator has never had."""
    seen = Assignment.objects.filter(item=OuterRef("pk"), annotator=annotator)
    return (
        Item.objects.filter(project=project, gold__isnull=False)
        .filter(~Exists(_round_membership(golditem__item=OuterRef("pk"))))
        .filter(~Exists(seen))
    )


def _has_rounds(project: Project) -> bool:
    return QualificationRound.objects.filter(project=project).exists()


def counted_label_sets(project: Project, *, include_excluded: bool = False):
    """Label sets that are data: qualified (when the project has rounds), not blocked, non-control.

    A blocked annotator counts again once the researcher re-includes them
    (``labels_included``). Paused annotators still count: a pause stops new work
    while the researcher looks, it is not a verdict. ``include_excluded`` counts
    every annotator; control items never count, since their labels measure the
    annotator, not the item.
    """
    label_sets = LabelSet.objects.filter(project=project).exclude(
        Exists(GoldItem.objects.filter(item_id=OuterRef("item_id")))
    )
    if include_excluded:
        return label_sets
    blocked = Qualification.objects.filter(
        project=project, annotator_id=OuterRef("annotator_id"), work_state=Work.BLOCKED,
        labels_included=False,
    )  # fmt: skip
    label_sets = label_sets.exclude(Exists(blocked))
    if _has_rounds(project):
        qualified = Qualification.objects.filter(
            project=project, annotator_id=OuterRef("annotator_id")
        ).filter(Q(state=State.QUALIFIED) | Q(labels_included=True))
        label_sets = label_sets.filter(Exists(qualified))
    return label_sets


# Why an annotator's labels are not (or not yet) data, for researchers: code -> text.
LABELS_EXCLUDED_BECAUSE = {
    "blocked": "A researcher blocked this annotator; their labels are left out until a "
    "researcher includes them again.",
    "eliminated": "This annotator did not qualify; their labels are left out.",
    "not_qualified_yet": "This annotator has not passed the qualification rounds yet; their "
    "labels count once they qualify, and are left out if they do not.",
}


def labels_verdict(q: Qualification | None, *, has_rounds: bool) -> tuple[bool | None, str]:
    """Whether an annotator's (non-control) labels are data, as counted_label_sets decides:
    (True, ""), (False, code) or, while the rounds are still to decide, (None, code); the
    code is a key of LABELS_EXCLUDED_BECAUSE. Paused annotators still count."""
    if q is not None and q.work_state == Work.BLOCKED and not q.labels_included:
        return False, "blocked"
    if not has_rounds or (q is not None and (q.state == State.QUALIFIED or q.labels_included)):
        return True, ""
    if q is not None and q.state == State.ELIMINATED:
        return False, "eliminated"
    return None, "not_qualified_yet"


# The exports' excluded_because keeps its two words for annotators whose labels are left out.
_EXPORT_FLAGS = {"blocked": "blocked", "eliminated": "not_qualified",
                 "not_qualified_yet": "not_qualified"}  # fmt: skip


def label_set_flags(project: Project) -> dict[int, str]:
    """Why label sets do not count: {label set id: "control" | "blocked" | "not_qualified"}."""
    flags: dict[int, str] = {}
    states = {q.annotator_id: q for q in Qualification.objects.filter(project=project)}
    rounds = _has_rounds(project)
    verdicts = {}
    gold_items = set(GoldItem.objects.filter(project=project).values_list("item_id", flat=True))
    rows = (
        LabelSet.objects.filter(project=project)
        .order_by()
        .values_list("pk", "item_id", "annotator_id")
        .iterator(chunk_size=5000)
    )
    for pk, item_id, annotator_id in rows:
        if item_id in gold_items:
            flags[pk] = "control"
            continue
        if annotator_id not in verdicts:
            verdicts[annotator_id] = labels_verdict(states.get(annotator_id), has_rounds=rounds)
        included, because = verdicts[annotator_id]
        if not included:
            flags[pk] = _EXPORT_FLAGS[because]
    return flags


def annotator_states(project: Project) -> dict[int, str]:
    """Each member's standing: invited, started, qualified, eliminated, paused or blocked."""
    states = dict.fromkeys(
        ProjectMember.objects.filter(project=project).values_list("annotator_id", flat=True),
        State.INVITED.value,
    )
    rounds = _has_rounds(project)
    if not rounds:
        states = dict.fromkeys(states, State.QUALIFIED.value)
    for q in Qualification.objects.filter(project=project):
        state = q.state if rounds or q.state == State.ELIMINATED else State.QUALIFIED.value
        states[q.annotator_id] = q.work_state if q.work_state != Work.ACTIVE else state
    return states


@dataclass(frozen=True)
class FunnelStep:
    label: str
    count: int


def funnel(project: Project) -> list[FunnelStep]:
    """invited -> started -> passed round 1 -> ... -> qualified / eliminated.

    "Started" and "Passed round i" count what annotators did (their attempts), so
    someone a researcher qualified by hand shows up only in "Qualified", and in
    "Qualified by hand" beside it.
    """
    members = ProjectMember.objects.filter(project=project).count()
    qs = Qualification.objects.filter(project=project)
    attempts = RoundAttempt.objects.filter(qualification=OuterRef("pk"))
    rounds = list(project.rounds.order_by("position"))
    passed = {r.position: Exists(attempts.filter(round=r, passed=True)) for r in rounds}
    aggregates = {
        "started": Count("pk", filter=Q(Exists(attempts))),
        "qualified": Count("pk", filter=Q(state=State.QUALIFIED)),
        "eliminated": Count("pk", filter=Q(state=State.ELIMINATED)),
        **{f"round_{n}": Count("pk", filter=Q(e)) for n, e in passed.items()},
    }
    if rounds:
        # Rounds are taken in order, so passing the last one means passing them all.
        last = passed[rounds[-1].position]
        aggregates["by_hand"] = Count("pk", filter=Q(state=State.QUALIFIED) & ~Q(last))
    counts = qs.aggregate(**aggregates)
    steps = [FunnelStep("Invited", members), FunnelStep("Started", counts["started"])]
    steps += [FunnelStep(f"Passed round {n}", counts[f"round_{n}"]) for n in passed]
    steps.append(FunnelStep("Qualified", counts["qualified"]))
    if counts.get("by_hand"):
        steps.append(FunnelStep("Qualified by hand", counts["by_hand"]))
    steps.append(FunnelStep("Eliminated", counts["eliminated"]))
    return steps


def _because(code: str) -> dict | None:
    return {"code": code, "text": LABELS_EXCLUDED_BECAUSE[code]} if code else None


def quality_rows(project: Project) -> list[dict]:
    """One row per member: standing (a key of STANDING_LABELS and its label), rounds, controls."""
    from annotation.selectors.attempts import STANDING_LABELS, standing_key

    policy = QualityPolicy.objects.filter(project=project).first() or QualityPolicy()
    rounds = list(project.rounds.order_by("position"))
    quals = {
        q.annotator_id: q
        for q in Qualification.objects.filter(project=project).prefetch_related("attempts")
    }
    rows = []
    for member in ProjectMember.objects.filter(project=project).select_related("annotator"):
        q = quals.get(member.annotator_id)
        key = standing_key(q, rounds, policy)
        included, because = labels_verdict(q, has_rounds=bool(rounds))
        rows.append(
            {
                "annotator": member.annotator,
                "qualification": q,
                "state": key,
                "state_label": STANDING_LABELS[key],
                "work_state": q.work_state if q else Work.ACTIVE,
                "attempts": list(q.attempts.all()) if q else [],
                "labels_included": included,
                "labels_excluded_because": _because(because),
            }
        )
    return rows


def paused_annotators(project: Project) -> list[Qualification]:
    return list(
        Qualification.objects.filter(project=project, work_state=Work.PAUSED)
        .select_related("annotator")
        .order_by("paused_at")
    )


def answers_beside_gold(project: Project, annotator) -> list[dict]:
    """Each finished attempt of the annotator, item by item, their labels beside gold."""
    out = []
    attempts = (
        RoundAttempt.objects.filter(
            qualification__project=project, qualification__annotator=annotator
        )
        .select_related("round")
        .order_by("round__position", "number")
    )
    for attempt in attempts:
        golds = attempt_gold(attempt)  # the captions this attempt asked, not the whole pool
        items = []
        for gold in golds:
            answer = attempt.answers.get(str(gold.pk))
            items.append(
                {
                    "gold": gold,
                    "sentences": [
                        {
                            "text": text,
                            "gold": gold.labels[n],
                            "answer": answer[n] if answer else None,
                        }
                        for n, text in enumerate(gold.item.sentences)
                    ],
                }
            )
        out.append({"attempt": attempt, "items": items})
    return out


def control_scores(project: Project) -> dict[int, tuple[float | None, int]]:
    """Annotator id -> (running control score, controls counted), as the quality pages show it."""
    return {
        q.annotator_id: (q.control_accuracy, q.controls_done)
        for q in Qualification.objects.filter(project=project).only(
            "annotator_id", "controls_done", "control_score_sum"
        )
    }
