"""Each trial page and each submit runs a constant number of SQL queries, whatever the trial."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.test import APIClient

from studies.models import AnswerType
from studies.selectors.study import trial_current
from studies.tests.factories import answer_for, make_study
from studies.tests.test_participant_pages import form_for

pytestmark = pytest.mark.django_db

# Before this issue: 3 for a page (session, trial, first-shown stamp), 8 for an HTML
# answer, 7 for a JSON answer. Now a page reads the current trial with its session and
# study in one query and writes nothing.
TRIAL_PAGE = 1
# An answer, HTML or JSON: the answered trial and the two after it with the session, a
# savepoint (outside a test's transaction none: the write commits on its own), one write
# guarded by the session's row (response, session, next trial's first-shown stamp), release.
# Other databases run the three writes one by one (studies/services/sessions/write.py).
WRITES = 1 if connection.vendor == "postgresql" else 3
HTML_SUBMIT = 3 + WRITES
API_TRIAL = 1
API_SUBMIT = 3 + WRITES
# The last answer has no next trial to mark (one write fewer where they go one by one).
API_LAST_SUBMIT = 3 + WRITES - (WRITES > 1)


@pytest.fixture
def session(researcher):
    from studies.services.sessions import Identity, session_start

    study = make_study(researcher, pairs=6)
    return session_start(
        study=study, identity=Identity("prolific", "P1", {"PROLIFIC_PID": "P1"})
    ).session


def test_trial_pages_and_html_submits_run_constant_queries(
    client, session, django_assert_num_queries
):
    client.post(reverse("participate:begin", args=[session.token]))
    seen = set()
    url = reverse("participate:session", args=[session.token])
    answer_url = reverse("participate:answer", args=[session.token])
    while session.current_position < session.trial_count:
        trial = trial_current(session)
        kind = (
            trial.attention_check.answer_type if trial.is_attention else trial.question.answer_type
        )
        seen.add((trial.kind, kind))
        with django_assert_num_queries(TRIAL_PAGE):
            assert client.get(url).status_code == 200
        last = trial.position == session.trial_count - 1
        with django_assert_num_queries(API_LAST_SUBMIT if last else HTML_SUBMIT):
            assert client.post(answer_url, form_for(trial)).status_code == 302
        session.refresh_from_db()
    assert {k for _, k in seen} == {
        AnswerType.MULTIPLE_CHOICE,
        AnswerType.FREE_TEXT,
        AnswerType.RANKING,
    }
    assert {k for k, _ in seen} == {"chart", "attention"}


def test_a_reloaded_trial_page_needs_no_more_queries_than_the_first_view(
    client, session, django_assert_max_num_queries
):
    client.post(reverse("participate:begin", args=[session.token]))
    url = reverse("participate:session", args=[session.token])
    client.get(url)
    with django_assert_max_num_queries(TRIAL_PAGE):
        client.get(url)


def test_json_trials_and_submits_run_constant_queries(session, django_assert_num_queries):
    api = APIClient()
    base = f"/api/v1/participate/sessions/{session.token}"
    # The end of the instructions marks the first trial shown, so showing it writes nothing.
    assert api.post(f"{base}/begin/").status_code == 200
    with django_assert_num_queries(API_TRIAL):
        assert api.get(f"{base}/trial/").status_code == 200
    while session.current_position < session.trial_count:
        trial = trial_current(session)
        last = trial.position == session.trial_count - 1
        body = {
            "position": trial.position,
            "answer": answer_for(trial),
            "idempotency_key": f"k{trial.position}",
            "interactions": 2,
        }
        with django_assert_num_queries(API_LAST_SUBMIT if last else API_SUBMIT):
            response = api.post(f"{base}/responses/", body, format="json")
        assert response.status_code == 201
        assert (response.json()["next_trial"] is None) == last
        session.refresh_from_db()


def test_a_json_client_that_skips_begin_starts_the_clock_with_its_first_trial(session):
    api = APIClient()
    base = f"/api/v1/participate/sessions/{session.token}"
    assert api.get(f"{base}/trial/").json()["shown_at"] is not None
    assert trial_current(session).shown_at is not None


def statement(sql: str) -> str:
    """The SQL run: a prepared statement's own text behind PREPARE or EXECUTE (core/db/prepared.py)."""
    sql = sql.strip()
    name = re.match(r"(?:PREPARE (\w+) AS .*; )?EXECUTE (\w+)", sql, re.S)
    if not name:
        return sql
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements WHERE name = %s", [name[2]])
        [(text,)] = cursor.fetchall()
    return re.sub(r"^PREPARE \w+ AS ", "", text.strip())


def test_answers_mark_the_next_trial_shown_and_pages_write_nothing(
    client, session, django_assert_num_queries
):
    client.post(reverse("participate:begin", args=[session.token]))
    assert trial_current(session).shown_at is not None
    url = reverse("participate:session", args=[session.token])
    answer_url = reverse("participate:answer", args=[session.token])
    trial = trial_current(session)
    with CaptureQueriesContext(connection) as page:
        client.get(url)
    assert all(statement(q["sql"]).upper().startswith("SELECT") for q in page.captured_queries)
    client.post(answer_url, form_for(trial))
    session.refresh_from_db()
    following = trial_current(session)
    assert following.position == trial.position + 1
    assert following.shown_at is not None
    assert following.shown_at == trial.response.answered_at


def _synchronous_commit() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SHOW synchronous_commit")
        return cursor.fetchone()[0]


@pytest.mark.postgres  # a PostgreSQL setting
@pytest.mark.parametrize("fast", [False, True])
def test_fast_answer_commit_relaxes_only_the_answers_transaction(
    session, fast, django_assert_num_queries
):
    # The test's own transaction is still open after the answer, so SET LOCAL shows.
    session.study.fast_answer_commit = fast
    session.study.save(update_fields=["fast_answer_commit"])
    api = APIClient()
    base = f"/api/v1/participate/sessions/{session.token}"
    assert api.post(f"{base}/begin/").status_code == 200
    assert _synchronous_commit() == "on"
    trial = trial_current(session)
    body = {"position": 0, "answer": answer_for(trial), "interactions": 2}
    with django_assert_num_queries(API_SUBMIT):  # no statement more: it goes with the write
        response = api.post(f"{base}/responses/", body, format="json")
    assert response.status_code == 201
    assert _synchronous_commit() == ("off" if fast else "on")
    stored = session.responses.get()
    assert stored.pk and stored.position == 0 and stored.raw_answer
    session.refresh_from_db()
    assert session.current_position == 1


def test_a_start_reads_the_study_design_before_it_locks_the_study(researcher):
    """Concurrent starts queue on the study's row lock (consecutive participant numbers, no
    over-filling), so the lock is held only for what needs it: the existing-session and
    availability checks, the number, and the writes. The pairs, charts, questions and
    checks are read before it (fixed once participants have started)."""
    from studies.services.sessions import Identity, session_start

    study = make_study(researcher, pairs=6)
    with CaptureQueriesContext(connection) as queries:
        session_start(study=study, identity=Identity("prolific", "P9", {"PROLIFIC_PID": "P9"}))
    statements = [q["sql"] for q in queries.captured_queries]
    # The study read that locks its row (FOR UPDATE on PostgreSQL; SQLite locks the file).
    locked = next(i for i, sql in enumerate(statements) if 'FROM "studies_study"' in sql)
    assert ("FOR UPDATE" in statements[locked]) == (connection.vendor == "postgresql")
    design = ("studies_studypair", "studies_chart", "studies_question", "studies_attentioncheck")
    for table in design:
        reads = [i for i, sql in enumerate(statements) if sql.startswith("SELECT") and
                 f'FROM "{table}"' in sql]  # fmt: skip
        assert reads and max(reads) < locked, (table, statements)
    under_lock = [sql.split()[0] for sql in statements[locked + 1 :]]
    # the existing session, the number, the session (in a savepoint: SQLite's fallback
    # for a lost race), its trials, and the end of the transaction (COMMIT outside tests)
    assert under_lock == [
        "SELECT", "UPDATE", "SAVEPOINT", "INSERT", "RELEASE", "INSERT", "RELEASE"
    ], statements  # fmt: skip
