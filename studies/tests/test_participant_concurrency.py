"""Concurrent requests on real PostgreSQL connections: nothing stored twice, nothing lost."""

import threading
from collections import Counter

import pytest
from django.db import connection
from rest_framework.test import APIClient

from studies.models import ParticipantSession, Response
from studies.services.sessions import AlreadyStarted, Identity, session_start
from studies.tests.factories import answer_for, make_study

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def in_parallel(n, work):
    """Run ``work(i)`` in n threads released at the same moment; return their results."""
    barrier = threading.Barrier(n)
    results = [None] * n

    def run(i):
        try:
            barrier.wait()
            results[i] = work(i)
        except Exception as exc:  # noqa: BLE001 - reported through the results
            results[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return results


def identity(pid):
    return Identity("prolific", pid, {"PROLIFIC_PID": pid})


def test_parallel_double_submits_store_one_answer(researcher):
    study = make_study(researcher, pairs=4)
    session = session_start(study=study, identity=identity("P1")).session
    trial = session.trials.select_related("question", "attention_check").get(position=0)
    body = {
        "position": 0,
        "answer": answer_for(trial),
        "interactions": 1,
        "idempotency_key": "same-click",
    }
    url = f"/api/v1/participate/sessions/{session.token}/responses/"

    codes = in_parallel(8, lambda i: APIClient().post(url, body, format="json").status_code)
    assert sorted(codes) == [200] * 7 + [201]
    assert Response.objects.filter(session=session).count() == 1
    session.refresh_from_db()
    assert session.current_position == 1


def test_parallel_different_answers_to_one_trial_store_exactly_one(researcher):
    study = make_study(researcher, pairs=4)
    session = session_start(study=study, identity=identity("P1")).session
    trial = session.trials.select_related("question", "attention_check").get(position=0)
    url = f"/api/v1/participate/sessions/{session.token}/responses/"

    def work(i):
        # Right and wrong answers, each from its own "tab" (its own key).
        body = {
            "position": 0,
            "answer": answer_for(trial, correct=i % 2 == 0),
            "interactions": 1,
            "idempotency_key": f"k{i}",
        }
        return APIClient().post(url, body, format="json").status_code

    codes = Counter(in_parallel(10, work))
    assert codes == {201: 1, 409: 9}
    assert Response.objects.filter(session=session).count() == 1


def test_rapid_fire_submits_for_a_whole_session_lose_nothing(researcher):
    study = make_study(researcher, pairs=5)
    session = session_start(study=study, identity=identity("P1")).session
    trials = list(session.trials.select_related("question", "attention_check").order_by("position"))
    url = f"/api/v1/participate/sessions/{session.token}/responses/"

    def work(i):
        # Every thread walks the whole study, racing the others at every step.
        client, codes = APIClient(), []
        for trial in trials:
            body = {
                "position": trial.position,
                "answer": answer_for(trial),
                "interactions": 1,
                "idempotency_key": f"t{trial.position}",
            }
            codes.append(client.post(url, body, format="json").status_code)
        return codes

    results = in_parallel(6, work)
    assert all(isinstance(r, list) for r in results), results
    statuses = Counter(code for codes in results for code in codes)
    assert statuses[201] == len(trials) and set(statuses) <= {200, 201, 409}
    stored = Response.objects.filter(session=session)
    assert stored.count() == len(trials)
    assert sorted(stored.values_list("position", flat=True)) == list(range(len(trials)))
    session.refresh_from_db()
    assert session.status == ParticipantSession.Status.COMPLETED


def test_parallel_starts_with_one_platform_id_make_one_session(researcher):
    study = make_study(researcher, pairs=3)
    results = in_parallel(
        8, lambda i: session_start(study=study, identity=identity("SAME")).session.pk
    )
    # One start wins; the others hold no proof of it, so they get no session at all.
    started = [r for r in results if isinstance(r, int)]
    assert len(started) == 1, results
    assert all(isinstance(r, AlreadyStarted) for r in results if not isinstance(r, int))
    assert ParticipantSession.objects.filter(study=study).count() == 1


def test_parallel_starts_get_consecutive_numbers_and_stay_balanced(researcher):
    study = make_study(researcher, pairs=6, target_participants=None)
    results = in_parallel(
        20, lambda i: session_start(study=study, identity=identity(f"P{i}")).session.number
    )
    assert sorted(results) == list(range(1, 21))
    firsts = Counter()
    for session in ParticipantSession.objects.filter(study=study):
        seen = set()
        for item in session.order:
            if item["kind"] == "chart" and item["pair"] not in seen:
                seen.add(item["pair"])
                firsts[item["pair"]] += item["version"] == 2
    assert set(firsts.values()) == {10}


def test_a_full_study_is_not_overfilled_by_a_burst_of_arrivals(researcher):
    study = make_study(researcher, pairs=3, target_participants=5)

    def work(i):
        try:
            session_start(study=study, identity=identity(f"B{i}"))
            return "started"
        except Exception as exc:  # noqa: BLE001
            return type(exc).__name__

    results = Counter(in_parallel(12, work))
    assert results == {"started": 5, "StudyFull": 7}  # a StudyUnavailable that says "full"
    assert ParticipantSession.objects.filter(study=study).count() == 5
