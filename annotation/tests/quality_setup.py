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


# One error per caption, a different one each time, so one caption's gold says nothing
# about another's.
POOL_GOLD = [
    [["value_error"], []],
    [[], ["trend_error"]],
    [["label_error"], []],
    [[], ["magnitude_error"]],
]


def with_pool(project, make_items, researcher, *, pool=4, per_attempt=2, **policy):
    """Round 1 draws ``per_attempt`` of ``pool`` gold captions; round 2 has one caption.

    Each pool caption has its own sentences and explanation, so a response that shows
    one caption's gold can be told from one that shows another's.
    """
    golds = []
    for n in range(pool):
        (item,) = make_items(
            project, 1, sentences=(f"Pool caption {n} says 1{n}.4% in 2010.", f"It fell {n}.")
        )
        labels = POOL_GOLD[n % len(POOL_GOLD)]
        golds.append(gold_set(project=project, item=item, labels=labels, actor=researcher,
                              explanation=f"Explained-{n}: one error."))  # fmt: skip
    (b,) = make_items(project, 1)
    gb = gold_set(project=project, item=b, labels=GOLD_B, actor=researcher)
    r1 = round_create(project=project, title="Round one", gold_items=golds,
                      items_per_attempt=per_attempt, actor=researcher)  # fmt: skip
    r2 = round_create(project=project, title="Round two", gold_items=[gb], actor=researcher)
    p = policy_for(project)
    for key, value in {"show_gold_after_round": True, **policy}.items():
        setattr(p, key, value)
    p.save()
    return {"rounds": [r1, r2], "pool": golds, "gold_b": gb}


def fail_attempt(project, annotator, position=1):
    """Start round ``position`` and answer every caption with no errors (gold has some)."""
    from annotation.services.quality import attempt_answer, attempt_start

    attempt = attempt_start(project=project, annotator=annotator, position=position)
    for index in range(1, len(attempt.gold_ids) + 1):
        attempt = attempt_answer(project=project, annotator=annotator, position=position,
                                 index=index, labels=[[], []])  # fmt: skip
    assert attempt.passed is False
    return attempt


def wait_out_cooldown(attempt):
    """Move a finished attempt's end back past any cooldown (the tests' clock)."""
    from datetime import timedelta

    from annotation.models import RoundAttempt

    RoundAttempt.objects.filter(pk=attempt.pk).update(
        finished_at=attempt.finished_at - timedelta(days=8)
    )


def qualify_pool(project, annotator):
    """Pass both rounds of ``with_pool`` with the right answers."""
    from annotation.selectors.attempts import attempt_gold
    from annotation.services.quality import attempt_answer, attempt_start

    for position in (1, 2):
        attempt = attempt_start(project=project, annotator=annotator, position=position)
        for index, gold in enumerate(attempt_gold(attempt), start=1):
            attempt = attempt_answer(project=project, annotator=annotator, position=position,
                                     index=index, labels=gold.labels)  # fmt: skip
        assert attempt.passed
