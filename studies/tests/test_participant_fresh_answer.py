"""The usual answer is stored without a lock, and only if the session is still as it was read.

services/sessions/record.py reads the session and its trials without locking, decides the
answer, and writes it in one statement guarded by the session's row; whatever moved or
ended the session in between makes the guard fail, and the locked path answers instead.
"""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from studies.models import ParticipantSession, Response
from studies.services import sessions as svc
from studies.services.sessions import Identity, SessionEnded, record, session_start
from studies.tests.factories import answer_for, make_study
from studies.tests.test_participant_api import trial_at


@pytest.fixture
def session(researcher):
    study = make_study(researcher, pairs=2)
    session = session_start(study=study, identity=Identity("prolific", "P1", {})).session
    svc.session_begin(session=session)
    return session


def _answer(session, position, **extra):
    return svc.response_record(
        token=session.token,
        position=position,
        answer=answer_for(trial_at(session.token, position)),
        interactions=1,
        **extra,
    )


def _between_read_and_write(monkeypatch, change):
    """Run ``change`` once, right after the unlocked read of the next answer."""
    read = record._TRIALS
    done = []

    def reading(**values):
        rows = read(**values)
        if not done:
            done.append(True)
            change()
        return rows

    monkeypatch.setattr(record, "_TRIALS", reading)
    return done


@pytest.mark.django_db
def test_an_answer_stored_meanwhile_makes_this_one_its_repeat(session, monkeypatch):
    # The same answer, sent twice (a retry after a lost reply) and stored by the other
    # request between this one's read and write: stored once, and this one is its repeat.
    done = _between_read_and_write(monkeypatch, lambda: _answer(session, 0, idempotency_key="k"))
    result = _answer(session, 0, idempotency_key="k")
    assert done and result.duplicate is True
    assert Response.objects.filter(session=session).count() == 1
    session.refresh_from_db()
    assert session.current_position == 1


@pytest.mark.django_db
def test_a_session_ended_meanwhile_is_not_moved_on(session, monkeypatch):
    def withdraw():
        ParticipantSession.objects.filter(pk=session.pk).update(status="withdrawn")

    done = _between_read_and_write(monkeypatch, withdraw)
    with pytest.raises(SessionEnded):
        _answer(session, 0)
    assert done and not Response.objects.filter(session=session).exists()
    session.refresh_from_db()
    assert session.current_position == 0 and session.status == "withdrawn"


@pytest.mark.postgres
@pytest.mark.django_db
def test_a_text_too_long_for_its_column_is_refused_not_cut(session):
    # The guarded insert casts its values; a cast to varchar(64) would cut a longer key.
    from django.db import DataError

    with pytest.raises(DataError):
        _answer(session, 0, idempotency_key="k" * 80)
    assert not Response.objects.filter(session=session).exists()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_an_answer_is_a_read_and_one_write(session):
    from studies.tests.test_participant_queries import statement

    answer = answer_for(trial_at(session.token, 0))
    with CaptureQueriesContext(connection) as seen:
        result = svc.response_record(
            token=session.token, position=0, answer=answer, interactions=1, with_next=True
        )
    assert result.duplicate is False and result.next_trial.position == 1
    # The read, and one statement writing the response, the session and the next trial's
    # stamp, committed on its own: no BEGIN, no COMMIT, no lock.
    read, write = (statement(q["sql"]) for q in seen.captured_queries)
    assert read.startswith("SELECT") and "FOR UPDATE" not in read
    assert write.startswith("WITH advanced AS (UPDATE") and "INSERT INTO" in write
    session.refresh_from_db()
    assert session.current_position == 1
    assert session.trials.get(position=1).shown_at == result.response.answered_at


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_write_is_built_once_per_shape_and_reads_no_connection_proxy(session, monkeypatch):
    # Each answer used to build its statement anew and hand django.db.connection, a proxy
    # that looks the connection up per attribute read, to every field's conversion.
    from studies.services.sessions import write

    _answer(session, 0)  # the shape of a usual answer is now built
    built = write._answer_statement.cache_info().misses
    proxy_reads = _proxy_reads_during(monkeypatch, write, "_write")
    _answer(session, 1)
    assert write._answer_statement.cache_info().misses == built
    assert proxy_reads == []
    assert Response.objects.filter(session=session).count() == 2


def _proxy_reads_during(monkeypatch, module, name) -> list:
    """The attributes read through a connection proxy while ``module.name`` runs."""
    from django.utils.connection import ConnectionProxy

    reads, function = [], getattr(module, name)
    original = ConnectionProxy.__getattr__

    def counting(self, item):
        reads.append(item)
        return original(self, item)

    def run(*args, **kwargs):
        with monkeypatch.context() as patched:
            patched.setattr(ConnectionProxy, "__getattr__", counting)
            return function(*args, **kwargs)

    monkeypatch.setattr(module, name, run)
    return reads


@pytest.mark.postgres
@pytest.mark.django_db
def test_each_shape_of_write_has_one_placeholder_per_value():
    from studies.services.sessions import write

    for guard in (None, (("current_position", False), ("completed_at", True))):
        for with_next in (False, True):
            sql, slots = write._answer_statement(("current_position",), guard, with_next)
            assert sql.count("%s") == len(slots)
            assert ("IS NULL" in sql) == (guard is not None or with_next)


@pytest.mark.postgres
@pytest.mark.django_db
def test_the_write_placeholders_are_the_sessions_then_the_next_trials_then_the_responses():
    from studies.models import ParticipantSession, Trial
    from studies.services.sessions import write

    guard = (("current_position", False), ("completed_at", True))
    _sql, slots = write._answer_statement(("current_position",), guard, True)
    session_part = [f.model for f in slots[:3]]  # the new position, the key, the guarded position
    assert session_part == [ParticipantSession] * 3
    assert [(f.model, f.name) for f in slots[3:5]] == [(Trial, "shown_at"), (Trial, "id")]
    assert {f.model for f in slots[5:]} == {Response}
    assert len(slots[5:]) == len([f for f in Response._meta.concrete_fields if not f.primary_key])
