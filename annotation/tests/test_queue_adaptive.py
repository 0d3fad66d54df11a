"""The adaptive overlap policy through the queue, its settings and its budget (any database)."""

from __future__ import annotations

import itertools

import pytest
from django.core.exceptions import ValidationError

from annotation.assignment import strategy as rules
from annotation.models import Item, LabelSet
from annotation.selectors.overlap import overlap_budget, wanting_items
from annotation.selectors.work import annotator_progress
from annotation.services import assignment_next, assignment_submit, project_update

pytestmark = pytest.mark.django_db

AGREE = [[], ["trend_error"]]
OTHER = [["value_error"], ["trend_error"]]


def _adaptive(project, **extra):
    settings = {
        "overlap_policy": "adaptive",
        "overlap_k_min": 2,
        "overlap_k_max": 4,
        "overlap_rule": "disagreement",
        **extra,
    }
    return project_update(project=project, **settings)


def _work(project, person, labels_for):
    """One lease and submit; ``labels_for(item)`` says what the person marks. None when no work."""
    assignment = assignment_next(project=project, annotator=person)
    if assignment is None:
        return None
    labels = labels_for(assignment.item)
    assignment_submit(assignment_id=assignment.pk, annotator=person, labels=labels)
    return assignment.item_id


def test_the_queue_filter_is_the_pure_rule(project, make_items):
    _adaptive(project)
    grid = [
        (filled, submitted, flag)
        for filled, submitted, flag in itertools.product(range(6), range(6), (False, True))
        if submitted <= filled
    ]
    items = make_items(project, len(grid))
    for item, (filled, submitted, flag) in zip(items, grid, strict=True):
        item.filled_count, item.submitted_count, item.disputed = filled, submitted, flag
    Item.objects.bulk_update(items, ["filled_count", "submitted_count", "disputed"])
    for overlap in (project.overlap(), rules.Overlap(k=3)):
        expected = {
            item.pk
            for item, (f, s, d) in zip(items, grid, strict=True)
            if rules.wants_more(overlap, filled=f, submitted=s, disputed=d)
        }
        got = set(
            Item.objects.filter(project=project)
            .filter(wanting_items(overlap))
            .values_list("pk", flat=True)
        )
        assert got == expected


def test_agreeing_items_stop_at_k_min_and_disputed_ones_grow_to_k_max(project, make_items, members):
    _adaptive(project)
    easy, hard = make_items(project, 2)
    people = members(6)

    # Everyone agrees on the easy item; on the hard one, each annotator marks differently.
    def labels_for(person_index):
        return lambda item: AGREE if item.pk == easy.pk or person_index % 2 else OTHER

    for index, person in enumerate(people):
        while _work(project, person, labels_for(index)) is not None:
            pass
    counts = {item.pk: LabelSet.objects.filter(item=item).count() for item in (easy, hard)}
    assert counts == {easy.pk: 2, hard.pk: 4}
    easy.refresh_from_db(), hard.refresh_from_db()
    assert (easy.disputed, hard.disputed) == (False, True)
    assert (hard.filled_count, hard.submitted_count) == (4, 4)
    pairs = list(LabelSet.objects.values_list("item_id", "annotator_id"))
    assert len(pairs) == len(set(pairs))


def test_a_disputed_item_gets_one_more_holder_at_a_time(project, make_items, members):
    _adaptive(project)
    (item,) = make_items(project, 1)
    a, b, c, d = members(4)
    _work(project, a, lambda _: AGREE)
    _work(project, b, lambda _: OTHER)
    third = assignment_next(project=project, annotator=c)
    assert third is not None and third.item_id == item.pk
    # Until the third label set is in, nobody else gets the item.
    assert assignment_next(project=project, annotator=d) is None
    assignment_submit(assignment_id=third.pk, annotator=c, labels=AGREE)
    assert assignment_next(project=project, annotator=d).item_id == item.pk


def test_the_confidence_rule_with_majority_vote_settles_a_clear_majority(
    project, make_items, members
):
    _adaptive(project, overlap_rule="confidence", overlap_threshold=0.3)
    (item,) = make_items(project, 1)
    a, b, c, d = members(4)
    _work(project, a, lambda _: AGREE)
    _work(project, b, lambda _: OTHER)
    item.refresh_from_db()
    assert item.disputed  # 1 of 2: a share of 0.5
    _work(project, c, lambda _: AGREE)
    item.refresh_from_db()
    assert item.disputed  # 1 of 3 say value_error: 0.33 is still within (0.3, 0.7)
    _work(project, d, lambda _: AGREE)
    item.refresh_from_db()
    assert not item.disputed and item.submitted_count == 4


def test_switching_the_policy_recomputes_which_items_are_disputed(project, make_items, members):
    project_update(project=project, annotators_per_item=2)
    one, two = make_items(project, 2)
    a, b = members(2)
    for person, labels in ((a, AGREE), (b, OTHER)):
        while _work(project, person, lambda item, lab=labels: lab if item.pk == one.pk else AGREE):
            pass
    assert not Item.objects.filter(disputed=True).exists()  # fixed k never disputes
    _adaptive(project)
    assert list(Item.objects.filter(disputed=True).values_list("pk", flat=True)) == [one.pk]


def test_switching_to_adaptive_keeps_the_default_confidence_rule_at_0_3(project):
    project_update(project=project, overlap_policy="adaptive")
    project.refresh_from_db()
    assert (project.overlap_rule, project.overlap_threshold) == ("confidence", 0.3)
    assert project.overlap() == rules.Overlap(policy="adaptive", k=project.annotators_per_item)


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        (
            {"overlap_k_min": 3, "overlap_k_max": 2},
            "overlap_k_max",
            "k_max must be at least k_min (3)",
        ),
        ({"overlap_k_min": 0}, "overlap_k_min", "from 1 to 50"),
        ({"overlap_threshold": 0.5}, "overlap_threshold", "above 0 and below 0.5"),
        ({"overlap_threshold": "x"}, "overlap_threshold", "above 0 and below 0.5"),
        ({"overlap_policy": "sometimes"}, "overlap_policy", "fixed"),
        ({"overlap_rule": "vibes"}, "overlap_rule", "disagreement"),
    ],
)
def test_the_overlap_settings_are_checked_together(project, changes, field, message):
    with pytest.raises(ValidationError) as caught:
        project_update(project=project, **changes)
    assert message in " ".join(caught.value.message_dict[field])


def test_budget_and_items_left_count_items_that_may_still_grow(project, make_items, members):
    _adaptive(project)
    easy, hard, fresh = make_items(project, 3)
    a, b, c = members(3)
    for person, labels in ((a, AGREE), (b, OTHER)):
        for _ in range(2):
            _work(project, person, lambda item, lab=labels: lab if item.pk == hard.pk else AGREE)
    budget = overlap_budget(project)
    # easy: 2 in, settled; hard: 2 in, disputed (1 committed, up to 2); fresh: 0 in (2, up to 4).
    assert (budget.submitted, budget.committed_left, budget.possible_left) == (4, 3, 6)
    assert (budget.committed, budget.possible, budget.growing) == (7, 10, 2)
    assert annotator_progress(project=project, annotator=c).left_for_you == 2
    assert annotator_progress(project=project, annotator=a).left_for_you == 1


def test_the_confidence_rule_with_dawid_skene_uses_the_fitted_rates(project, make_items, members):
    _adaptive(project, overlap_rule="confidence", overlap_threshold=0.1)
    items = make_items(project, 6)
    people = members(3)
    for person in people:
        for _ in range(4):
            _work(project, person, lambda item: AGREE)
    project_update(project=project, aggregation_method="dawid_skene")
    project.refresh_from_db()
    fitted = project.overlap_estimates["categories"]["trend_error"]
    assert project.overlap_estimates["method"] == "dawid_skene"
    assert set(fitted["rates"]) == {str(p.pk) for p in people} and 0 < fitted["prior"] < 1
    # Everyone agreed everywhere: nothing is disputed with the fitted rates either.
    assert LabelSet.objects.filter(item__in=items).count() == 10
    assert not Item.objects.filter(project=project, disputed=True).exists()
