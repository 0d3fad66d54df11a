"""simulate_study: simulated participants through the real session services."""

import pytest
from django.core.management import CommandError, call_command

from studies.models import ParticipantSession, Response, Trial
from studies.services.results.compute import results_compute
from studies.services.results.simulate import study_simulate
from studies.tests.factories import make_study

pytestmark = pytest.mark.django_db


def test_it_fills_a_study_with_complete_sessions_and_checked_answers(researcher):
    study = make_study(researcher, pairs=3)
    summary = study_simulate(study=study, participants=12, seed=3, timeout_rate=0)
    assert summary.created == 12
    sessions = ParticipantSession.objects.filter(study=study)
    assert sessions.count() == 12
    assert set(sessions.values_list("status", flat=True)) == {"completed"}
    # every trial answered once, with a correctness the real checker decided
    assert (
        Response.objects.filter(session__study=study).count()
        == Trial.objects.filter(session__study=study).count()
    )
    assert not Response.objects.filter(session__study=study, correct__isnull=True).exists()
    failing = sessions.filter(attention_failures__gt=0).count()
    assert failing == summary.inattentive or failing >= summary.inattentive


def test_the_same_seed_resumes_rather_than_adding(researcher):
    study = make_study(researcher, pairs=3)
    study_simulate(study=study, participants=5, seed=9)
    again = study_simulate(study=study, participants=5, seed=9)
    assert again.created == 0 and again.resumed == 5
    assert ParticipantSession.objects.filter(study=study).count() == 5


def test_dashboard_hmi_is_close_to_the_simulated_rates(researcher):
    study = make_study(researcher, pairs=3, checks=(None,))
    summary = study_simulate(
        study=study, participants=400, seed=5, attention_fail_rate=0.1, timeout_rate=0
    )
    data = results_compute(study, fit_models=False)
    assert data["funnel"]["included"] >= 330
    for chart in data["charts"]:
        expected = summary.expected_hmi[chart["chart_id"]]
        assert abs(chart["hmi"] - expected) < 0.09, chart["chart_id"]


def test_the_command_reports_what_it_did(researcher, capsys):
    study = make_study(researcher, pairs=2)
    call_command("simulate_study", study.slug, "--participants", "4", "--seed", "2")
    out = capsys.readouterr().out
    assert "4 new participants" in out
    assert ParticipantSession.objects.filter(study=study).count() == 4


def test_the_command_rejects_unknown_studies_and_bad_counts(researcher):
    study = make_study(researcher, pairs=2)
    with pytest.raises(CommandError, match="No study"):
        call_command("simulate_study", "nope", "--participants", "4")
    with pytest.raises(CommandError, match="at least 1"):
        call_command("simulate_study", study.slug, "--participants", "0")


def test_the_command_explains_a_closed_study(researcher):
    study = make_study(researcher, pairs=2, status="draft")
    with pytest.raises(CommandError, match="not open"):
        call_command("simulate_study", study.slug, "--participants", "2")


def test_the_demo_helper_fills_the_study_and_stores_results(researcher):
    from demo.results import simulate_demo_results
    from studies.models import StudyResults

    study = make_study(researcher, pairs=3)
    summary = simulate_demo_results(study, participants=10, seed=1)
    assert summary.created == 10
    snapshot = StudyResults.objects.get(study=study)
    assert snapshot.computed_at and snapshot.data["funnel"]["took_part"] == 10
    assert simulate_demo_results(study, participants=10, seed=1).created == 0
