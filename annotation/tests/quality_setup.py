"""Helpers for the quality tests: a project with gold, two rounds and control items."""

from __future__ import annotations

from annotation.models import Item
from annotation.services.quality import gold_set, policy_for, round_create

KEYS = [
    "value_error", "label_error", "trend_error", "magnitude_error",
    "ooc_error", "grammatical_error", "nonsense_error",
]  # fmt: skip
GOLD_A = [["value_error"], []]
GOLD_B = [[], ["trend_error"]]
GOLD_CONTROL = [["label_error"], []]


def with_rounds(project, make_items, researcher, *, controls=3, **policy):
    """Two one-item rounds (gold A, gold B) and ``controls`` control items; returns them."""
    a, b = make_items(project, 2)
    ga = gold_set(
        project=project, item=a, labels=GOLD_A, explanation="20.4% is wrong.", actor=researcher
    )
    gb = gold_set(project=project, item=b, labels=GOLD_B, actor=researcher)
    r1 = round_create(project=project, title="Round one", gold_items=[ga], actor=researcher)
    r2 = round_create(project=project, title="Round two", gold_items=[gb], actor=researcher)
    control_items = make_items(project, controls) if controls else []
    golds = [
        gold_set(project=project, item=i, labels=GOLD_CONTROL, actor=researcher)
        for i in control_items
    ]
    if policy:
        p = policy_for(project)
        for key, value in policy.items():
            setattr(p, key, value)
        p.save()
    return {"rounds": [r1, r2], "gold": [ga, gb], "controls": golds}


def qualify(project, annotator):
    """Take both rounds with the right answers."""
    from annotation.services.quality import attempt_answer, attempt_start

    for position, gold in ((1, GOLD_A), (2, GOLD_B)):
        attempt_start(project=project, annotator=annotator, position=position)
        attempt_answer(
            project=project, annotator=annotator, position=position, index=1, labels=gold
        )


def control_item_ids(project):
    return set(
        Item.objects.filter(project=project, gold__isnull=False).values_list("pk", flat=True)
    )


GOLD_C = [["magnitude_error"], []]


def with_three_rounds(project, make_items, researcher, **policy):
    """``with_rounds`` plus a third one-item round (gold C), no control items."""
    setup = with_rounds(project, make_items, researcher, controls=0, **policy)
    (c,) = make_items(project, 1)
    gc = gold_set(project=project, item=c, labels=GOLD_C, actor=researcher)
    r3 = round_create(project=project, title="Round three", gold_items=[gc], actor=researcher)
    return {"rounds": [*setup["rounds"], r3], "gold": [*setup["gold"], gc]}


def round_titles(project):
    """The project's round titles in order, after checking positions are exactly 1..n."""
    rows = list(project.rounds.order_by("position").values_list("position", "title"))
    assert [p for p, _ in rows] == list(range(1, len(rows) + 1))
    return [t for _, t in rows]
