"""Control items in real work: the rate, scoring, pausing, blocking and what counts as data."""

import pytest

from annotation.models import Assignment, LabelSet, Qualification
from annotation.selectors.quality import annotator_states, counted_label_sets, label_set_flags
from annotation.services import QueueError, assignment_next, assignment_submit
from annotation.services.quality import annotator_decide, policy_for
from annotation.services.quality import controls as controls_module
from annotation.tests.quality_setup import GOLD_CONTROL, control_item_ids, qualify, with_rounds

pytestmark = pytest.mark.django_db


def _work(project, annotator, n, *, labels=None):
    """Take and submit up to ``n`` items; returns the leased item ids."""
    got = []
    for _ in range(n):
        try:
            lease = assignment_next(project=project, annotator=annotator)
        except QueueError:  # paused or blocked
            break
        if lease is None:
            break
        got.append(lease.item_id)
        answer = labels(lease.item_id) if labels else [[] for _ in lease.item.sentences]
        assignment_submit(assignment_id=lease.pk, annotator=annotator, labels=answer)
    return got


def test_control_items_come_at_the_configured_rate(
    project, make_items, members, researcher, monkeypatch
):
    import random

    monkeypatch.setattr(controls_module, "_rng", random.Random(3))
    project.annotators_per_item = 1
    project.save()
    with_rounds(project, make_items, researcher, controls=90, control_rate=0.2, min_controls=1000)
    make_items(project, 300)
    (anna,) = members(1)
    qualify(project, anna)
    got = _work(project, anna, 400)
    controls = control_item_ids(project)
    given = [item in controls for item in got]
    # 300 ordinary items and 75 controls: a fifth of everything the annotator had.
    assert (len(got), sum(given)) == (375, 75)
    # Spread over all of them, not bunched at either end.
    for part in (given[:125], given[125:250], given[250:]):
        assert 15 <= sum(part) <= 35


def test_round_items_are_never_leased_as_work(project, make_items, members, researcher):
    setup = with_rounds(project, make_items, researcher, controls=0)
    make_items(project, 5)
    (anna,) = members(1)
    qualify(project, anna)
    got = _work(project, anna, 10)
    assert len(got) == 5
    assert not {g.item_id for g in setup["gold"]} & set(got)


def test_a_low_control_score_pauses_after_the_minimum_and_resume_restarts(
    project, make_items, members, researcher
):
    with_rounds(
        project,
        make_items,
        researcher,
        controls=4,
        control_rate=0.5,
        min_controls=2,
        pause_threshold=0.5,
    )
    make_items(project, 10)
    (anna,) = members(1)
    qualify(project, anna)
    _work(project, anna, 20)  # answers nothing: every control scores F1 0
    q = Qualification.objects.get(annotator=anna)
    assert q.work_state == "paused" and q.controls_done == 2
    with pytest.raises(QueueError) as paused:
        assignment_next(project=project, annotator=anna)
    assert paused.value.status == 403 and "paused" in paused.value.message
    annotator_decide(
        project=project,
        annotator=anna,
        action="resume",
        reason="Talked it through",
        actor=researcher,
    )
    assert assignment_next(project=project, annotator=anna) is not None


def test_good_control_work_is_not_paused(project, make_items, members, researcher):
    with_rounds(project, make_items, researcher, controls=4, control_rate=0.5, min_controls=2)
    make_items(project, 10)
    (anna,) = members(1)
    qualify(project, anna)
    controls = control_item_ids(project)
    _work(project, anna, 20, labels=lambda item: GOLD_CONTROL if item in controls else [[], []])
    q = Qualification.objects.get(annotator=anna)
    assert q.work_state == "active" and q.control_accuracy == 1.0 and q.controls_done == 4


def test_control_labels_are_kept_but_never_counted(project, make_items, members, researcher):
    with_rounds(project, make_items, researcher, controls=3, control_rate=0.5, min_controls=100)
    make_items(project, 6)
    (anna,) = members(1)
    qualify(project, anna)
    _work(project, anna, 20)
    controls = control_item_ids(project)
    kept = LabelSet.objects.filter(item_id__in=controls).count()
    assert kept == 3
    counted = set(counted_label_sets(project).values_list("item_id", flat=True))
    assert counted and not counted & controls
    assert set(label_set_flags(project).values()) == {"control"}


def test_blocked_annotators_labels_are_excluded_until_included_again(
    project, make_items, members, researcher
):
    with_rounds(project, make_items, researcher, controls=0)
    make_items(project, 4)
    anna, ben = members(2)
    qualify(project, anna)
    qualify(project, ben)
    _work(project, anna, 2)
    _work(project, ben, 2)
    assert counted_label_sets(project).count() == 4
    annotator_decide(
        project=project, annotator=ben, action="block", reason="Random clicking", actor=researcher
    )
    assert set(counted_label_sets(project).values_list("annotator", flat=True)) == {anna.pk}
    assert counted_label_sets(project, include_excluded=True).count() == 4
    assert annotator_states(project)[ben.pk] == "blocked"
    assert list(label_set_flags(project).values()) == ["blocked", "blocked"]
    with pytest.raises(QueueError) as blocked:
        assignment_next(project=project, annotator=ben)
    assert blocked.value.status == 403
    annotator_decide(
        project=project, annotator=ben, action="include", reason="Reviewed: fine", actor=researcher
    )
    assert counted_label_sets(project).count() == 4


def test_unqualified_annotators_labels_do_not_count(project, make_items, members, researcher):
    make_items(project, 2)
    (anna,) = members(1)
    _work(project, anna, 2)  # before any round existed
    assert counted_label_sets(project).count() == 2
    with_rounds(project, make_items, researcher, controls=0)
    assert counted_label_sets(project).count() == 0
    assert set(label_set_flags(project).values()) == {"not_qualified"}


def test_projects_without_rounds_work_as_before(project, make_items, members):
    make_items(project, 2)
    (anna,) = members(1)
    assert len(_work(project, anna, 5)) == 2
    assert policy_for(project).control_rate == 0.1
    assert Assignment.objects.filter(annotator=anna).count() == 2


def test_a_gold_edit_rescores_controls_and_can_pause(project, make_items, members, researcher):
    from annotation.models import GoldItem
    from annotation.services.quality import gold_set
    from core.models import AuditEntry

    setup = with_rounds(
        project, make_items, researcher, controls=2, control_rate=0.5, min_controls=2
    )
    make_items(project, 4)
    (anna,) = members(1)
    qualify(project, anna)
    controls = control_item_ids(project)
    _work(project, anna, 10, labels=lambda item: GOLD_CONTROL if item in controls else [[], []])
    q = Qualification.objects.get(annotator=anna)
    assert (q.controls_done, q.control_accuracy, q.work_state) == (2, 1.0, "active")
    for gold in setup["controls"]:
        gold_set(project=project, item=gold.item, labels=[[], ["value_error"]], actor=researcher)
    q.refresh_from_db()
    assert (q.control_accuracy, q.work_state) == (0.0, "paused")
    assert AuditEntry.objects.filter(action="annotation.annotator_paused").exists()
    rescored = AuditEntry.objects.filter(action="annotation.controls_rescored").order_by("pk")
    assert [e.details["after"]["score"] for e in rescored] == [0.5, 0.0]
    assert rescored[0].details["before"] == {"controls": 2, "score": 1.0}
    assert [e.details["paused"] for e in rescored] == [True, False]  # 0.5 < 0.6 pauses
    assert GoldItem.objects.filter(labels=[[], ["value_error"]]).count() == 2


def test_after_a_resume_a_gold_edit_rescores_only_the_controls_since(
    project, make_items, members, researcher
):
    from annotation.services.quality import gold_set

    setup = with_rounds(
        project, make_items, researcher, controls=4, control_rate=0.5, min_controls=2,
        pause_threshold=0.5,
    )  # fmt: skip
    make_items(project, 10)
    (anna,) = members(1)
    qualify(project, anna)
    _work(project, anna, 20)  # two empty answers against GOLD_CONTROL: F1 0, paused
    first = set(control_item_ids(project)) & set(
        LabelSet.objects.filter(annotator=anna).values_list("item_id", flat=True)
    )
    assert len(first) == 2
    annotator_decide(project=project, annotator=anna, action="resume", reason="Retrained",
                     actor=researcher)  # fmt: skip
    # Re-scoring an old control must not bring the old, forgiven scores back.
    old_gold = next(g for g in setup["controls"] if g.item_id in first)
    gold_set(project=project, item=old_gold.item, labels=[["value_error"], []], actor=researcher)
    q = Qualification.objects.get(annotator=anna)
    assert (q.controls_done, q.work_state) == (0, "active")
    # Controls after the resume count: answering the rest right keeps a perfect score.
    controls = control_item_ids(project)
    _work(project, anna, 20, labels=lambda item: GOLD_CONTROL if item in controls else [[], []])
    q.refresh_from_db()
    assert q.controls_done == 2 and q.control_accuracy == 1.0 and q.work_state == "active"


def test_a_control_submit_keeps_its_score_in_the_running_mean(
    project, make_items, members, researcher
):
    """Hand-worked: gold [[label], []]; answer [[label, trend], []] gives TP 1, FP 1, F1 2/3."""
    with_rounds(project, make_items, researcher, controls=1, control_rate=0.5, min_controls=50)
    make_items(project, 4)
    (anna,) = members(1)
    qualify(project, anna)
    controls = control_item_ids(project)
    _work(project, anna, 6, labels=lambda item: (
        [["label_error", "trend_error"], []] if item in controls else [[], []]
    ))  # fmt: skip
    q = Qualification.objects.get(annotator=anna)
    assert q.controls_done == 1
    assert q.control_accuracy == pytest.approx(2 / 3)
    # The recount from the stored label sets gives the same number.
    recounted = controls_module.qualification_recount(qualification_id=q.pk, actor=researcher)
    assert recounted.control_accuracy == pytest.approx(2 / 3)


def test_a_lease_cannot_be_moved_to_someone_the_queue_gives_no_work(
    project, make_items, members, researcher
):
    from annotation.services import assignment_reassign

    with_rounds(project, make_items, researcher, controls=0)
    make_items(project, 2)
    anna, bob = members(2)
    qualify(project, anna)
    lease = assignment_next(project=project, annotator=anna)
    with pytest.raises(QueueError, match=f"{bob.username} has not passed the qualification"):
        assignment_reassign(
            assignment_id=lease.pk, project=project, to_annotator=bob, actor=researcher
        )
    lease.refresh_from_db()
    assert lease.state == Assignment.State.LEASED and lease.annotator == anna
    qualify(project, bob)
    annotator_decide(
        project=project, annotator=bob, action="block", reason="Check", actor=researcher
    )
    with pytest.raises(QueueError, match=f"{bob.username} is blocked in this project"):
        assignment_reassign(
            assignment_id=lease.pk, project=project, to_annotator=bob, actor=researcher
        )
    annotator_decide(
        project=project, annotator=bob, action="resume", reason="Fine", actor=researcher
    )
    moved = assignment_reassign(
        assignment_id=lease.pk, project=project, to_annotator=bob, actor=researcher
    )
    assert moved.annotator == bob and moved.state == Assignment.State.LEASED
