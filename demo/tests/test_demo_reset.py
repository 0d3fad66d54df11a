"""`make demo-reset` (manage.py demo_reset) puts the demo back to its first state."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import DatabaseError

from annotation.models import LabelSet, Project, Qualification, RoundAttempt
from annotation.services.quality import attempt_answer, attempt_start
from core.models import ApiToken, User
from demo.annotation import DEMO_SLUG, NEW_ANNOTATOR
from demo.study import DEMO_SLUG as STUDY_SLUG
from studies.models import AttentionCheck, ParticipantSession, Response, Study, StudyResults
from studies.selectors.results import study_counted_response_count
from studies.services.results.simulate import study_simulate
from studies.tests.factories import make_study

pytestmark = pytest.mark.django_db


def test_demo_reset_brings_back_the_participant_link_annotator_new_and_the_project(capsys):
    call_command("load_demo")
    project = Project.objects.get(slug=DEMO_SLUG)
    labels_at_start = LabelSet.objects.filter(project=project).count()
    new = User.objects.get(username=NEW_ANNOTATOR)
    # A visitor fails round 1 as annotator-new, uses the participant link, changes a password.
    attempt_start(project=project, annotator=new, position=1)
    attempt_answer(project=project, annotator=new, position=1, index=1, labels=[[], [], []])
    study = Study.objects.get(slug=STUDY_SLUG)
    ParticipantSession.objects.create(study=study, external_id="5f0c1d2e3a4b5c6d7e8f9a0b")
    new.set_password("something else")
    new.save()
    # ... and as the researcher pauses and renames the demo study, makes a study, a
    # project and a token.
    study.status, study.title = Study.Status.PAUSED, "Renamed"
    study.save()
    researcher = User.objects.get(username="researcher")
    made = make_study(researcher, pairs=1)
    Project.objects.create(owner=researcher, title="Mine", slug="mine")
    ApiToken.objects.create(user=researcher, name="notebook", prefix="abc", key_hash="x" * 64)

    call_command("demo_reset")

    project = Project.objects.get(slug=DEMO_SLUG)
    assert LabelSet.objects.filter(project=project).count() == labels_at_start
    assert not RoundAttempt.objects.filter(qualification__annotator=new).exists()
    assert not Qualification.objects.filter(annotator=new).exists()
    assert project.members.filter(annotator=new).exists()
    assert project.quality.max_attempts == 2
    assert not ParticipantSession.objects.filter(external_id="5f0c1d2e3a4b5c6d7e8f9a0b").exists()
    assert ParticipantSession.objects.filter(study=study).exists()  # simulated ones stay
    new.refresh_from_db()
    assert new.check_password("chartroom-demo")
    study.refresh_from_db()
    assert study.status == Study.Status.LIVE and study.title.endswith("(demo)")
    assert not Study.objects.filter(pk=made.pk).exists()
    assert not Project.objects.filter(slug="mine").exists()
    assert not ApiToken.objects.filter(user=researcher).exists()
    snapshot = StudyResults.objects.get(study=study)  # recomputed without the visitor
    assert snapshot.computed_at and snapshot.response_count == study_counted_response_count(study)
    out = capsys.readouterr().out
    assert "Participant link: 1 visitor session removed." in out
    assert "put back title, status" in out
    assert Project.objects.filter(slug=DEMO_SLUG).count() == 1


def _first_state() -> dict:
    study = Study.objects.get(slug=STUDY_SLUG)
    project = Project.objects.get(slug=DEMO_SLUG)
    return {
        "studies": sorted(Study.objects.values_list("slug", flat=True)),
        "demo study": (study.status, study.title),
        "sessions": ParticipantSession.objects.filter(study=study).count(),
        "responses": Response.objects.count(),
        "labels": LabelSet.objects.filter(project=project).count(),
        "projects": sorted(Project.objects.values_list("slug", flat=True)),
        "checks": AttentionCheck.objects.count(),
    }


def test_demo_reset_removes_a_researcher_study_whose_participants_answered_checks(capsys):
    call_command("load_demo")
    first = _first_state()
    researcher = User.objects.get(username="researcher")
    made = make_study(researcher, pairs=2)
    study_simulate(study=made, participants=3, seed=5)
    assert Response.objects.filter(session__study=made, attention_check__isnull=False).exists()
    capsys.readouterr()

    call_command("demo_reset")

    assert not Study.objects.filter(pk=made.pk).exists()
    assert not ParticipantSession.objects.filter(study_id=made.pk).exists()
    assert _first_state() == first
    out = capsys.readouterr().out
    assert "Made during the visit and removed: 1 study, 3 participant sessions in it" in out
    assert "Demo reset to its first state." in out


def test_a_demo_reset_that_fails_changes_nothing_and_says_so(monkeypatch):
    call_command("load_demo")
    researcher = User.objects.get(username="researcher")
    made = make_study(researcher, pairs=2)
    study_simulate(study=made, participants=2, seed=5)
    demo = Study.objects.get(slug=STUDY_SLUG)
    demo.status = Study.Status.PAUSED
    demo.save()

    def broken(owner):
        raise DatabaseError("disk full")

    monkeypatch.setattr("demo.management.commands.demo_reset.study_demo_reset", broken)
    with pytest.raises(CommandError, match="stopped and changed nothing"):
        call_command("demo_reset")

    # The researcher's study, its sessions and the demo project are all still there.
    assert ParticipantSession.objects.filter(study=made).count() == 2
    assert Project.objects.filter(slug=DEMO_SLUG).exists()
    demo.refresh_from_db()
    assert demo.status == Study.Status.PAUSED


def test_the_summary_counts_one_thing_in_the_singular_and_more_in_the_plural():
    from demo.reset import extras_text

    base = dict.fromkeys(
        ["studies", "participant sessions", "annotation projects", "chart sets", "API tokens"], 0
    )
    assert extras_text(base) == "nothing"
    one = {**base, "studies": 1, "participant sessions": 1, "chart sets": 1, "API tokens": 1}
    assert extras_text(one) == "1 study, 1 participant session in it, 1 chart set, 1 API token"
    many = {**base, "studies": 2, "participant sessions": 5, "annotation projects": 3}
    assert extras_text(many) == "2 studies, 5 participant sessions in them, 3 annotation projects"
