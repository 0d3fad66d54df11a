"""Editing, deleting and reordering qualification rounds: allowed until annotators attempt them."""

import pytest

from annotation.models import GoldItem, Qualification, QualificationRound
from annotation.selectors.rounds import round_rows
from annotation.services import assignment_next
from annotation.services.quality import (
    QualityError,
    attempt_answer,
    attempt_start,
    gold_set,
    round_create,
)
from annotation.services.quality.round_edits import round_delete, round_move, round_update
from annotation.tests.quality_setup import (
    GOLD_A,
    GOLD_B,
    round_titles,
    with_pool,
    with_three_rounds,
)
from core.models import AuditEntry

pytestmark = pytest.mark.django_db

ONE_TWO_THREE = ["Round one", "Round two", "Round three"]


@pytest.fixture
def three(project, make_items, researcher):
    return with_three_rounds(project, make_items, researcher, max_attempts=1)


def _refused(call, **kwargs) -> QualityError:
    with pytest.raises(QualityError) as refused:
        call(**kwargs)
    return refused.value


def _start(project, annotator, position=1):
    attempt_start(project=project, annotator=annotator, position=position)


def test_a_round_nobody_attempted_changes_freely_and_the_change_is_logged(
    project, three, researcher
):
    r2 = three["rounds"][1]
    gold_c = three["gold"][2]
    changed = round_update(project=project, round_id=r2.pk, actor=researcher, title=" Harder ",
                           rule="accuracy", pass_mark=0.9, gold_items=[gold_c])  # fmt: skip
    changed.refresh_from_db()
    assert (changed.title, changed.rule, changed.pass_mark) == ("Harder", "accuracy", 0.9)
    assert [g.pk for g in changed.gold_items.all()] == [gold_c.pk]
    entry = AuditEntry.objects.get(action="annotation.round_update")
    assert entry.actor == researcher and entry.subject == project.subject
    assert entry.details == {
        "position": 2,
        "before": {"title": "Round two", "rule": "f1", "pass_mark": 0.6,
                   "gold_items": [three["gold"][1].item_id]},
        "after": {"title": "Harder", "rule": "accuracy", "pass_mark": 0.9,
                  "gold_items": [gold_c.item_id]},
    }  # fmt: skip


def test_once_attempted_only_the_title_changes(project, three, members, researcher):
    (anna,) = members(1)
    _start(project, anna)
    r1 = three["rounds"][0]
    for change in ({"rule": "accuracy"}, {"pass_mark": 0.1}, {"gold_items": [three["gold"][2]]}):
        refusal = _refused(round_update, project=project, round_id=r1.pk, actor=researcher,
                           **change)  # fmt: skip
        assert refusal.status == 409 and refusal.code == "round_started"
        assert "attempted by 1 annotator, so its rule, pass mark and gold items are fixed" in (
            refusal.message
        )
        assert "add a new round" in refusal.message
    # Sending the current settings with a new title, as the edit form does, is a rename.
    round_update(project=project, round_id=r1.pk, actor=researcher, title="Warm-up",
                 rule="f1", pass_mark=0.6, gold_items=[three["gold"][0]])  # fmt: skip
    r1.refresh_from_db()
    assert (r1.title, r1.rule, r1.pass_mark) == ("Warm-up", "f1", 0.6)
    entry = AuditEntry.objects.get(action="annotation.round_update")
    assert entry.details["before"] == {"title": "Round one"}
    assert entry.details["after"] == {"title": "Warm-up"}


def test_an_edit_that_changes_nothing_writes_nothing(project, three, researcher):
    r1 = three["rounds"][0]
    round_update(project=project, round_id=r1.pk, actor=researcher, title="Round one")
    assert not AuditEntry.objects.filter(action="annotation.round_update").exists()


def test_bad_round_settings_are_refused_as_400(project, three, researcher, make_items):
    from annotation.services import project_create

    other = project_create(owner=researcher, title="Other")
    (foreign_item,) = make_items(other, 1)
    foreign = gold_set(project=other, item=foreign_item, labels=GOLD_A, actor=researcher)
    r1 = three["rounds"][0]
    cases = [
        ({"title": "   "}, "title"),
        ({"title": "x" * 121}, "title"),
        ({"gold_items": []}, "at least one gold item"),
        ({"gold_items": [foreign]}, "belong to the project"),
        ({"rule": "kappa"}, "'f1' or 'accuracy'"),
        ({"pass_mark": 1.5}, "between 0 and 1"),
    ]
    for change, words in cases:
        refusal = _refused(round_update, project=project, round_id=r1.pk, actor=researcher,
                           **change)  # fmt: skip
        assert refusal.status == 400 and words in refusal.message
    missing = _refused(round_update, project=project, round_id=10**6, actor=researcher, title="x")
    assert missing.status == 404
    r1.refresh_from_db()
    assert (r1.title, r1.rule, r1.pass_mark) == ("Round one", "f1", 0.6)


def test_deleting_a_middle_round_closes_the_gap_and_is_logged(project, three, researcher):
    done = round_delete(project=project, round_id=three["rounds"][1].pk, actor=researcher)
    assert done == {"position": 2, "title": "Round two", "qualified": []}
    assert round_titles(project) == ["Round one", "Round three"]
    entry = AuditEntry.objects.get(action="annotation.round_delete")
    assert entry.details["position"] == 2 and entry.details["title"] == "Round two"
    assert entry.details["gold_items"] == [three["gold"][1].item_id]
    # Its gold stays (it becomes a control item), and a new round goes at the end.
    assert GoldItem.objects.filter(pk=three["gold"][1].pk).exists()
    added = round_create(project=project, title="Round four", gold_items=[three["gold"][1]])
    assert added.position == 3


def test_deleting_the_first_of_many_rounds_keeps_their_order(project, make_items, researcher):
    items = make_items(project, 6)
    golds = [gold_set(project=project, item=i, labels=GOLD_A, actor=researcher) for i in items]
    for n, gold in enumerate(golds, start=1):
        round_create(project=project, title=f"R{n}", gold_items=[gold])
    first = project.rounds.get(position=1)
    round_delete(project=project, round_id=first.pk, actor=researcher)
    assert round_titles(project) == ["R2", "R3", "R4", "R5", "R6"]
    middle = project.rounds.get(title="R4")
    round_delete(project=project, round_id=middle.pk, actor=researcher)
    assert round_titles(project) == ["R2", "R3", "R5", "R6"]


def test_a_round_someone_attempted_cannot_be_deleted(project, three, members, researcher):
    (anna,) = members(1)
    _start(project, anna)
    refusal = _refused(round_delete, project=project, round_id=three["rounds"][0].pk,
                       actor=researcher)  # fmt: skip
    assert refusal.status == 409 and "Round 1 cannot be deleted: 1 annotator attempted it" in (
        refusal.message
    )
    assert round_titles(project) == ONE_TWO_THREE
    assert not AuditEntry.objects.filter(action="annotation.round_delete").exists()


def test_moving_swaps_a_round_with_its_neighbour(project, three, researcher):
    r3 = three["rounds"][2]
    order = round_move(project=project, round_id=r3.pk, direction="up", actor=researcher)
    assert [r.title for r in order] == ["Round one", "Round three", "Round two"]
    assert round_titles(project) == ["Round one", "Round three", "Round two"]
    round_move(project=project, round_id=r3.pk, direction="up", actor=researcher)
    assert round_titles(project) == ["Round three", "Round one", "Round two"]
    round_move(project=project, round_id=r3.pk, direction="down", actor=researcher)
    assert round_titles(project) == ["Round one", "Round three", "Round two"]
    moves = AuditEntry.objects.filter(action="annotation.round_move").order_by("pk")
    assert [(m.details["from"], m.details["to"]) for m in moves] == [(3, 2), (2, 1), (1, 2)]
    assert moves[0].details["swapped_with"] == {"title": "Round two", "now": 3}


def test_moving_past_either_end_or_in_no_direction_is_refused(project, three, researcher):
    first, _, last = three["rounds"]
    up = _refused(round_move, project=project, round_id=first.pk, direction="up", actor=researcher)
    assert up.status == 409 and up.message == "Round 1 is already the first round."
    down = _refused(round_move, project=project, round_id=last.pk, direction="down",
                    actor=researcher)  # fmt: skip
    assert down.status == 409 and "already the last round" in down.message
    sideways = _refused(round_move, project=project, round_id=last.pk, direction="left",
                        actor=researcher)  # fmt: skip
    assert sideways.status == 400
    assert round_titles(project) == ONE_TWO_THREE


def test_rounds_someone_attempted_keep_their_place(project, three, members, researcher):
    (anna,) = members(1)
    _start(project, anna)
    r1, r2, r3 = three["rounds"]
    refusal = _refused(round_move, project=project, round_id=r2.pk, direction="up",
                       actor=researcher)  # fmt: skip
    assert refusal.status == 409 and refusal.code == "round_started"
    assert "annotators have attempted round 1" in refusal.message
    assert "credit them with a round they never took" in refusal.message
    assert _refused(round_move, project=project, round_id=r1.pk, direction="down",
                    actor=researcher).status == 409  # fmt: skip
    # Rounds 2 and 3 are ahead of everyone, so they can still swap.
    round_move(project=project, round_id=r3.pk, direction="up", actor=researcher)
    assert round_titles(project) == ["Round one", "Round three", "Round two"]


def test_annotators_take_rounds_in_the_new_order(project, three, members, researcher):
    round_move(project=project, round_id=three["rounds"][2].pk, direction="up", actor=researcher)
    (anna,) = members(1)
    _start(project, anna, 1)
    attempt_answer(project=project, annotator=anna, position=1, index=1, labels=GOLD_A)
    _start(project, anna, 2)
    # Round 2 is now "Round three": its gold is C, so answering B fails it.
    attempt = attempt_answer(project=project, annotator=anna, position=2, index=1, labels=GOLD_B)
    assert attempt.round.title == "Round three" and attempt.passed is False
    assert Qualification.objects.get(annotator=anna).state == "eliminated"


def test_deleting_the_last_round_qualifies_whoever_passed_all_the_others(
    project, three, members, researcher, make_items
):
    anna, ben, cleo = members(3)
    for position, gold in ((1, GOLD_A), (2, GOLD_B)):
        _start(project, anna, position)
        attempt_answer(project=project, annotator=anna, position=position, index=1, labels=gold)
    _start(project, ben, 1)
    attempt_answer(project=project, annotator=ben, position=1, index=1, labels=GOLD_A)
    assert Qualification.objects.get(annotator=anna).rounds_passed == 2
    make_items(project, 2)
    done = round_delete(project=project, round_id=three["rounds"][2].pk, actor=researcher)
    assert done["qualified"] == [anna.username]
    states = dict(Qualification.objects.values_list("annotator__username", "state"))
    assert states == {anna.username: "qualified", ben.username: "started"}
    entry = AuditEntry.objects.get(action="annotation.annotator_qualify")
    assert entry.details == {"annotator": anna.username, "automatic": True}
    assert "Round 3, the last round, was deleted" in entry.reason
    assert AuditEntry.objects.get(action="annotation.round_delete").details["qualified"] == [
        anna.username
    ]
    assert assignment_next(project=project, annotator=anna) is not None
    assert cleo.username not in states


def test_the_rounds_table_gives_the_services_reasons(project, three, members, researcher):
    (anna,) = members(1)
    _start(project, anna)
    rows = round_rows(project)
    assert [r.attempted for r in rows] == [1, 0, 0]
    first, second, third = rows
    assert first.up_locked == "Round 1 is already the first round."
    assert "cannot be deleted" in first.delete_locked and "fixed" in first.settings_locked
    assert "attempted round 1" in second.up_locked and second.down_locked is None
    assert second.delete_locked is None and second.settings_locked is None
    assert third.up_locked is None and "already the last" in third.down_locked
    refusal = _refused(round_move, project=project, round_id=second.round.pk, direction="up",
                       actor=researcher)  # fmt: skip
    assert refusal.message == second.up_locked


def test_a_round_can_only_be_changed_through_its_own_project(
    project, three, researcher, other_researcher
):
    from annotation.services import project_create

    other = project_create(owner=other_researcher, title="Theirs")
    r1 = three["rounds"][0]
    for call, kwargs in (
        (round_update, {"title": "x"}),
        (round_delete, {}),
        (round_move, {"direction": "down"}),
    ):
        refusal = _refused(call, project=other, round_id=r1.pk, actor=other_researcher, **kwargs)
        assert refusal.status == 404
    assert round_titles(project) == ONE_TWO_THREE
    assert QualificationRound.objects.get(pk=r1.pk).title == "Round one"


def test_captions_per_attempt_stays_within_the_pool_and_is_fixed_once_attempted(
    project, make_items, members, researcher
):
    setup = with_pool(project, make_items, researcher, pool=4, per_attempt=2)
    r1 = setup["rounds"][0]
    too_many = _refused(round_update, project=project, round_id=r1.pk, actor=researcher,
                        items_per_attempt=5)  # fmt: skip
    assert too_many.status == 400 and "between 1 and the round's 4" in too_many.message
    round_update(project=project, round_id=r1.pk, actor=researcher, items_per_attempt=None)
    r1.refresh_from_db()
    assert r1.items_per_attempt is None  # every attempt asks all four
    (anna,) = members(1)
    attempt_start(project=project, annotator=anna, position=1)
    fixed = _refused(round_update, project=project, round_id=r1.pk, actor=researcher,
                     items_per_attempt=2)  # fmt: skip
    assert fixed.status == 409 and "fixed" in fixed.message
    entry = AuditEntry.objects.filter(action="annotation.round_update").latest("pk")
    assert entry.details["after"] == {"items_per_attempt": None}
