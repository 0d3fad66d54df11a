"""Changing rounds under real concurrent connections to PostgreSQL (one per thread)."""

import threading
import time

import pytest
from django.db import connection, transaction

from annotation.models import Qualification, RoundAttempt
from annotation.services.quality import (
    QualityError,
    attempt_answer,
    attempt_start,
    gold_set,
    round_create,
)
from annotation.services.quality.round_edits import round_delete, round_move, round_update
from annotation.tests.quality_setup import GOLD_A, GOLD_B, round_titles, with_three_rounds
from annotation.tests.test_queue_concurrency import run_threads
from core.models import AuditEntry

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_researchers_changing_rounds_at_once_keep_positions_one_to_n(
    project, make_items, researcher, other_researcher
):
    project.collaborators.add(other_researcher)
    items = make_items(project, 14)
    golds = [gold_set(project=project, item=i, labels=GOLD_A, actor=researcher) for i in items]
    rounds = [
        round_create(project=project, title=f"R{n}", gold_items=[g], actor=researcher)
        for n, g in enumerate(golds[:8], start=1)
    ]
    spare = golds[8:]
    people = [researcher, other_researcher]

    def change(index):
        actor = people[index % 2]
        done = refused = 0
        for step in range(6):
            try:
                if index < 3:  # three deletions, of different rounds
                    if step == 0:
                        round_delete(project=project, round_id=rounds[index].pk, actor=actor)
                    else:
                        round_move(project=project, round_id=rounds[7].pk, actor=actor,
                                   direction="up" if step % 2 else "down")  # fmt: skip
                elif index < 6:  # creations at the end
                    if step < 2:
                        round_create(project=project, title=f"New {index}.{step}",
                                     gold_items=[spare[(index - 3) * 2 + step]], actor=actor)  # fmt: skip
                    else:
                        round_update(project=project, round_id=rounds[6].pk, actor=actor,
                                     title=f"Renamed by {index}.{step}")  # fmt: skip
                else:  # moves in both directions
                    round_move(project=project, round_id=rounds[index].pk, actor=actor,
                               direction="up" if (index + step) % 2 else "down")  # fmt: skip
                done += 1
            except QualityError:
                refused += 1  # e.g. already first: a clear refusal, not a collision
        return done, refused

    results = run_threads(8, change)
    titles = round_titles(project)  # also checks positions are exactly 1..n
    assert len(titles) == 8 - 3 + 6
    assert {f"R{n}" for n in (1, 2, 3)}.isdisjoint(titles)
    logged = AuditEntry.objects.filter(action__startswith="annotation.round_").count()
    assert logged == len(rounds) + sum(done for done, _ in results)


def test_annotators_starting_round_one_while_it_moves_all_land_on_the_first_round(
    project, make_items, members, researcher
):
    setup = with_three_rounds(project, make_items, researcher)
    people = members(10)

    def work(index):
        if index == 0:
            try:
                round_move(project=project, round_id=setup["rounds"][0].pk, direction="down",
                           actor=researcher)  # fmt: skip
                return "moved"
            except QualityError as exc:
                assert exc.code == "round_started"
                return "refused"
        attempt_start(project=project, annotator=people[index - 1], position=1)
        return "started"

    outcome = run_threads(11, work)
    first = project.rounds.get(position=1)
    attempts = RoundAttempt.objects.select_related("round")
    assert attempts.count() == 10
    # Whichever came first, nobody holds an attempt at a round that is no longer first.
    assert {a.round_id for a in attempts} == {first.pk}
    expected_first = "Round two" if outcome[0] == "moved" else "Round one"
    assert first.title == expected_first


def _wait_for_a_blocked_connection(timeout=10.0) -> None:
    deadline = time.monotonic() + timeout
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity "
                "WHERE datname = current_database() AND wait_event_type = 'Lock'"
            )
            if cursor.fetchone()[0]:
                return
            time.sleep(0.02)
    raise AssertionError("nobody waited for the round's lock")


def test_an_annotator_waiting_while_a_round_moves_starts_the_round_now_in_its_place(
    project, make_items, members, researcher
):
    setup = with_three_rounds(project, make_items, researcher)
    (anna,) = members(1)
    moved, release, started, errors = threading.Event(), threading.Event(), [], []

    def researcher_side():
        try:
            with transaction.atomic():  # hold the locks until the annotator is waiting
                round_move(project=project, round_id=setup["rounds"][0].pk, direction="down",
                           actor=researcher)  # fmt: skip
                moved.set()
                release.wait(10)
        except Exception as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)
        finally:
            connection.close()

    def annotator_side():
        try:
            moved.wait(10)
            started.append(attempt_start(project=project, annotator=anna, position=1))
        except Exception as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=researcher_side), threading.Thread(target=annotator_side)]
    for thread in threads:
        thread.start()
    _wait_for_a_blocked_connection()
    release.set()
    for thread in threads:
        thread.join(timeout=30)
    assert not errors, errors
    (attempt,) = started
    assert attempt.round.title == "Round two" and attempt.round.position == 1


def test_deleting_the_last_round_while_others_finish_the_one_before_qualifies_them(
    project, make_items, members, researcher
):
    setup = with_three_rounds(project, make_items, researcher)
    people = members(8)
    for person in people:
        attempt_start(project=project, annotator=person, position=1)
        attempt_answer(project=project, annotator=person, position=1, index=1, labels=GOLD_A)
        attempt_start(project=project, annotator=person, position=2)

    def work(index):
        if index == 0:
            return round_delete(project=project, round_id=setup["rounds"][2].pk, actor=researcher)
        person = people[index - 1]
        attempt_answer(project=project, annotator=person, position=2, index=1, labels=GOLD_B)
        return None

    run_threads(9, work)
    assert round_titles(project) == ["Round one", "Round two"]
    states = Qualification.objects.values_list("state", "rounds_passed")
    assert set(states) == {("qualified", 2)}
