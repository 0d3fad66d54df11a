"""The checks page counts a check as shown only when a participant reached it."""

import pytest
from rest_framework.test import APIClient

from studies.models import AttentionCheck
from studies.selectors.study import attention_checks_for
from studies.services.results.simulate import study_simulate
from studies.tests.factories import make_study

pytestmark = pytest.mark.django_db


def test_a_check_counts_as_shown_once_a_participant_reached_it(researcher):
    study = make_study(researcher, pairs=3, checks=(5,))
    check = AttentionCheck.objects.get(study=study)
    # A participant who only started: every trial is laid out, none past the first shown.
    started = APIClient().post(
        f"/api/v1/participate/studies/{study.slug}/sessions/",
        {"consent": True, "params": {"PROLIFIC_PID": "a" * 24, "STUDY_ID": "S", "SESSION_ID": "X"}},
        format="json",
    )
    assert started.status_code == 201, started.content
    assert check.trials.count() == 1
    assert attention_checks_for(study).get(pk=check.pk).shown == 0
    study_simulate(study=study, participants=2, seed=3, attention_fail_rate=0, timeout_rate=0)
    assert attention_checks_for(study).get(pk=check.pk).shown == 2
