"""A session's trials come from the study's design as it stands when the session starts."""

import pytest

from studies.models import ParticipantSession, Trial
from studies.services.sessions import Identity, session_start
from studies.services.sessions.errors import StudyUnavailable
from studies.tests.factories import make_study

pytestmark = pytest.mark.django_db


def test_every_chart_of_every_pair_and_every_check_is_one_trial(researcher):
    study = make_study(researcher, pairs=4)
    session = session_start(study=study, identity=Identity("prolific", "D1", {})).session
    trials = list(Trial.objects.filter(session=session).order_by("position"))
    charts = [t.chart_id for t in trials if t.kind == Trial.Kind.CHART]
    expected = {c.id for p in study.study_pairs.all() for c in p.question.charts.all()}
    assert sorted(charts) == sorted(expected) and len(expected) == 8
    checks = [t.attention_check_id for t in trials if t.kind == Trial.Kind.ATTENTION]
    assert sorted(checks) == sorted(study.attention_checks.values_list("id", flat=True))
    assert [t.position for t in trials] == list(range(session.trial_count)) == list(range(10))
    questions = {t.question_id for t in trials if t.kind == Trial.Kind.CHART}
    assert questions == set(study.study_pairs.values_list("question_id", flat=True))


def test_a_study_without_pairs_refuses_a_start_and_stores_nothing(researcher):
    study = make_study(researcher, pairs=2)
    study.study_pairs.all().delete()
    counter = study.test_counter
    with pytest.raises(StudyUnavailable) as refused:
        session_start(study=study, identity=Identity("prolific", "D2", {}), preview=True)
    assert refused.value.reason == "not_ready" and "no charts yet" in refused.value.message
    study.refresh_from_db()
    assert study.test_counter == counter  # the number drawn went back with the transaction
    assert not ParticipantSession.objects.filter(study=study).exists()
