"""The consent form sent twice (Enter pressed twice) is one start, or one decline."""

import re

import pytest
from django.test import Client

from studies.models import ParticipantSession
from studies.services.sessions.start_tokens import start_token_issue
from studies.tests.factories import make_study
from studies.tests.test_participant_pages import PID, consent_url, link

pytestmark = pytest.mark.django_db


@pytest.fixture
def study(researcher):
    return make_study(researcher, pairs=2)


def _form(client, study) -> dict:
    page = client.get(consent_url(study) + link(study)[link(study).index("?") :])
    assert page.status_code == 200
    (start,) = re.findall(r'name="start" value="([^"]+)"', page.content.decode())
    return {"choice": "agree", "PROLIFIC_PID": PID, "STUDY_ID": "st1", "start": start}


def test_the_same_agree_sent_twice_lands_both_in_the_one_session(study):
    browser = Client()
    form = _form(browser, study)
    first = browser.post(consent_url(study), form)
    assert first.status_code == 302
    # The second request cancelled the first's response: its cookie never arrived.
    again = Client().post(consent_url(study), form)
    assert again.status_code == 302 and again["Location"] == first["Location"]
    session = ParticipantSession.objects.get(study=study)
    assert again.cookies[f"chartroom_s{study.pk}"].value == session.token
    # Someone else with the same id and another form is still refused.
    assert Client().get(consent_url(study) + "?PROLIFIC_PID=" + PID).status_code == 409
    other_form = {**form, "start": start_token_issue(study.pk)}
    refused = Client().post(consent_url(study), other_form)
    assert refused.status_code == 409
    assert ParticipantSession.objects.filter(study=study).count() == 1


def test_the_same_decline_sent_twice_counts_once(study):
    form = {**_form(Client(), study), "choice": "decline"}
    for _ in range(2):
        assert Client().post(consent_url(study), form).status_code == 302
    assert ParticipantSession.objects.filter(study=study, status="declined").count() == 1


def test_a_start_token_of_another_study_or_forged_is_ignored(study, researcher):
    other = make_study(researcher, pairs=2)
    for start in (start_token_issue(other.pk), "forged", ""):
        client = Client()
        form = {"choice": "agree", "PROLIFIC_PID": f"{len(start):024x}", "STUDY_ID": "s"}
        assert client.post(consent_url(study), {**form, "start": start}).status_code == 302
    tokens = set(ParticipantSession.objects.filter(study=study).values_list("token", flat=True))
    assert len(tokens) == 3 and all(len(t) == 43 for t in tokens)
