"""A browser that declined consent and then agrees is one participant, not also a decline."""

import pytest
from django.test import Client

from studies.models import ParticipantSession
from studies.tests.factories import make_study
from studies.tests.test_participant_pages import PID, consent_url, start

pytestmark = pytest.mark.django_db


@pytest.fixture
def study(researcher):
    return make_study(researcher, pairs=2)


def test_agreeing_after_declining_in_the_same_browser_takes_the_decline_back(client, study):
    Declined = ParticipantSession.Status.DECLINED
    someone_else = Client()
    someone_else.post(consent_url(study), {"choice": "decline", "PROLIFIC_PID": "e" * 24})
    client.post(consent_url(study), {"choice": "decline", "PROLIFIC_PID": PID})
    assert ParticipantSession.objects.filter(study=study, status=Declined).count() == 2
    # Back, and agree after all: one participant, and only the other person's decline.
    session = start(client, study)
    assert session.status == ParticipantSession.Status.IN_PROGRESS
    assert ParticipantSession.objects.filter(study=study, status=Declined).count() == 1
    assert client.cookies[f"chartroom_s{study.pk}-declined"].value == ""


@pytest.mark.parametrize("status", ["draft", "paused", "closed"])
def test_a_study_that_takes_no_one_records_no_decline(researcher, status):
    from rest_framework.test import APIClient

    study = make_study(researcher, pairs=2, status=status)
    refused = APIClient().post(f"/api/v1/participate/studies/{study.slug}/decline/")
    assert refused.status_code == 409 and refused.json()["code"] == "study_unavailable"
    page = Client().post(consent_url(study), {"choice": "decline", "PROLIFIC_PID": PID})
    assert page.status_code == 200
    assert not ParticipantSession.objects.filter(study=study).exists()


def test_a_decline_does_not_lock_the_design(researcher):
    from studies.selectors.study import study_design_locked
    from studies.services.sessions import session_decline

    study = make_study(researcher, pairs=2)
    session_decline(study=study)
    assert not study_design_locked(study)
    start(Client(), study)
    assert study_design_locked(study)


def test_a_draft_studys_texts_are_not_public(researcher):
    from rest_framework.test import APIClient

    study = make_study(researcher, pairs=2, status="draft", consent_text="Secret draft consent")
    body = APIClient().get(f"/api/v1/participate/studies/{study.slug}/").json()
    assert body["accepting"] is False and body["unavailable_reason"] == "not_open"
    assert body["title"] == body["consent_text"] == body["instructions_text"] == ""
    assert "Secret" not in str(body)
    study.status = "live"
    study.save()
    body = APIClient().get(f"/api/v1/participate/studies/{study.slug}/").json()
    assert body["consent_text"] == "Secret draft consent" and body["title"] == study.title
