"""One address can send only so many consents and declines into one study per hour (a whole
class fits): past that, a 429 that says when to try again, and nothing is stored."""

import pytest
from rest_framework.test import APIClient

from studies.models import ParticipantSession
from studies.tests.factories import make_study

pytestmark = pytest.mark.django_db
API = "/api/v1/participate"
SAYS = "Many people have started this study from your network within the last hour."


@pytest.fixture
def study(researcher, settings):
    settings.CHARTROOM_ARRIVALS_LIMIT = 3
    return make_study(researcher, pairs=2)


def _start(client, study, n, ip="81.2.69.1"):
    return client.post(
        f"{API}/studies/{study.slug}/sessions/",
        {"consent": True, "params": {"PROLIFIC_PID": f"PID{n:04d}", "STUDY_ID": "S"}},
        format="json",
        REMOTE_ADDR=ip,
    )


def test_the_json_flow_refuses_starts_past_the_limit_with_retry_after(study, researcher):
    client = APIClient()
    assert [_start(client, study, n).status_code for n in range(3)] == [201, 201, 201]
    refused = _start(client, study, 3)
    assert refused.status_code == 429
    assert refused.json()["code"] == "too_many_arrivals" and SAYS in refused.json()["detail"]
    assert 0 < int(refused["Retry-After"]) <= 3600
    assert (
        client.post(f"{API}/studies/{study.slug}/decline/", REMOTE_ADDR="81.2.69.1").status_code
        == 429
    )
    assert ParticipantSession.objects.filter(study=study).count() == 3
    # Another address, or another study, is counted apart.
    assert _start(client, study, 4, ip="81.2.69.2").status_code == 201
    other = make_study(researcher, pairs=2)
    assert _start(client, other, 5).status_code == 201


def test_the_consent_page_refuses_past_the_limit_with_a_page(study, client):
    for n in range(3):
        form = {"choice": "decline", "PROLIFIC_PID": f"P{n}", "STUDY_ID": "S"}
        assert (
            client.post(f"/s/{study.slug}/consent/", form, REMOTE_ADDR="81.2.70.9").status_code
            == 302
        )
    form = {"choice": "agree", "PROLIFIC_PID": "P9", "STUDY_ID": "S"}
    page = client.post(f"/s/{study.slug}/consent/", form, REMOTE_ADDR="81.2.70.9")
    assert page.status_code == 429 and SAYS in page.content.decode()
    assert page["Retry-After"]
    assert not ParticipantSession.objects.filter(study=study, external_id="P9").exists()


def test_requests_from_this_machine_or_a_private_network_are_not_counted(study):
    client = APIClient()
    for n, ip in enumerate(["127.0.0.1"] * 4 + ["10.0.0.5"] * 4 + ["172.17.0.2"] * 4):
        assert _start(client, study, n, ip=ip).status_code == 201, ip


def test_one_ipv6_host_is_counted_by_its_64(study):
    client = APIClient()
    statuses = [
        _start(client, study, n, ip=f"2a00:1450:4001:81{n}::{n + 1}").status_code for n in range(2)
    ]
    statuses += [
        _start(client, study, n + 2, ip=f"2a00:1450:4001:82::{n + 1}").status_code for n in range(4)
    ]
    assert statuses == [201, 201, 201, 201, 201, 429]
