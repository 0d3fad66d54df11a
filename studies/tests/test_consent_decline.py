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
