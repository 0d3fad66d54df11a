"""A platform id never hands out someone else's session; the researcher can release a stuck id."""

import json
import re

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from core.models import AuditEntry
from studies.models import ParticipantSession, Response
from studies.selectors.study import trial_current
from studies.services.results.exclusion import study_exclusion
from studies.tests.factories import answer_for, make_study
from studies.tests.test_participant_pages import PID, consent_url, form_for, link, session_url

pytestmark = pytest.mark.django_db

API = "/api/v1/participate"


@pytest.fixture
def study(researcher):
    return make_study(researcher, pairs=3, completion_url="https://example.org/done?cc={code}")


# ------------------------------------------------------------------ HTML flow


def _html_start(client, study, pid=PID):
    response = client.post(consent_url(study), {"choice": "agree", "PROLIFIC_PID": pid})
    assert response.status_code == 302
    return ParticipantSession.objects.get(study=study, external_id=pid, status="in_progress")


def _html_answer(client, session):
    trial = trial_current(session)
    client.get(session_url(session))
    return client.post(reverse("participate:answer", args=[session.token]), form_for(trial))


def _main(response) -> str:
    return re.search(r"<main.*?</main>", response.content.decode(), re.S)[0]


# What can become of a session; "excluded" is a finished session the rules leave out.
OUTCOMES = {
    "in_progress": {},
    "completed": {"status": "completed"},
    "excluded": {"status": "completed", "attention_failures": 2},
    "timed_out": {"status": "timed_out"},
    "withdrawn": {"status": "withdrawn", "answers_deleted": True},
}


def test_someone_else_typing_an_id_learns_nothing_of_how_its_session_went(study):
    pages, bodies = {}, {}
    for outcome, change in OUTCOMES.items():
        pid = f"pid-{outcome}"
        session = _html_start(Client(), study, pid=pid)
        ParticipantSession.objects.filter(pk=session.pk).update(**change)
        for response in (
            Client().get(link(study, PROLIFIC_PID=pid, STUDY_ID="st1")),
            Client().get(consent_url(study) + f"?PROLIFIC_PID={pid}"),
            Client().post(consent_url(study), {"choice": "agree", "PROLIFIC_PID": pid}),
        ):
            assert response.status_code == 409
            pages.setdefault(outcome, set()).add(_main(response))
        refused = _api_start(APIClient(), study, pid=pid)
        assert refused.status_code == 409
        bodies[outcome] = refused.json()
    assert "excluded" in {
        d.facts.external_id.removeprefix("pid-")
        for d in study_exclusion(study).decisions
        if not d.included
    }
    assert all(len(shown) == 1 for shown in pages.values())
    assert len({page for shown in pages.values() for page in shown}) == 1
    page = pages["withdrawn"].pop()
    assert "already started with your Prolific ID" in page and "only once" in page
    assert "message the researcher on Prolific" in page
    for word in ("withdr", "finished with", "timed out", "excluded", "Thank you for taking part"):
        assert word not in page
    assert len({json.dumps(body, sort_keys=True) for body in bodies.values()}) == 1
    body = bodies["withdrawn"]
    assert body["code"] == "already_started" and set(body) == {"detail", "code", "errors"}
    assert "withdr" not in body["detail"] and "status" not in body
    assert ParticipantSession.objects.filter(study=study).count() == len(OUTCOMES)


def test_a_second_browser_with_the_same_id_is_refused_at_every_step(study):
    victim, attacker = Client(), Client()
    session = _html_start(victim, study)
    victim.post(reverse("participate:begin", args=[session.token]))
    assert _html_answer(victim, session).status_code == 302

    token = session.token.encode()
    for response in (
        attacker.get(link(study)),
        attacker.get(consent_url(study) + f"?PROLIFIC_PID={PID}"),
        attacker.post(consent_url(study), {"choice": "agree", "PROLIFIC_PID": PID}),
    ):
        assert response.status_code == 409
        assert b"This study was already started with your Prolific ID" in response.content
        assert b"browser window where you started" in response.content
        assert b"message the researcher on Prolific" in response.content
        assert token not in response.content and b"/s/p/" not in response.content
        assert not response.cookies

    # A made-up cookie holding the id (or anything but the token) proves nothing.
    attacker.cookies[f"chartroom_s{study.pk}"] = PID
    assert (
        attacker.post(consent_url(study), {"choice": "agree", "PROLIFIC_PID": PID}).status_code
        == 409
    )
    # The id is no key to the session's pages either.
    for name in ("session", "answer", "withdraw", "begin"):
        url = reverse(f"participate:{name}", args=[PID])
        response = attacker.post(url, {"position": 1}) if name != "session" else attacker.get(url)
        assert response.status_code == 404

    session.refresh_from_db()
    assert (session.status, session.current_position) == ("in_progress", 1)
    assert Response.objects.filter(session=session).count() == 1
    assert ParticipantSession.objects.filter(study=study).count() == 1

    # The victim goes on undisturbed, from the trial page and from the study link.
    assert b"Welcome back" in victim.get(link(study)).content
    while session.current_position < session.trial_count:
        assert _html_answer(victim, session).status_code == 302
        session.refresh_from_db()
    assert session.status == "completed"


def test_a_released_id_starts_a_new_session_in_a_new_browser(study, researcher, password):
    lost = Client()
    old = _html_start(lost, study)
    lost.post(reverse("participate:begin", args=[old.token]))
    _html_answer(lost, old)

    staff = Client()
    staff.login(username=researcher.username, password=password)
    monitor = staff.get(reverse("studies:detail", args=[study.slug]))
    assert b"Let this id start again" in monitor.content
    released = staff.post(
        reverse("studies:session-release", args=[study.slug, old.pk]), {"reason": "new laptop"}
    )
    assert released.status_code == 302
    assert b"kept as abandoned" in staff.get(released["Location"]).content

    fresh = Client()
    assert fresh.get(link(study)).status_code == 200
    new = _html_start(fresh, study)
    assert new.pk != old.pk
    old.refresh_from_db()
    assert old.status == "abandoned" and old.responses.count() == 1
    entry = AuditEntry.objects.get(action="study.session_release")
    assert (entry.actor, entry.reason, entry.details["external_id"]) == (
        researcher,
        "new laptop",
        PID,
    )

    # The old browser sees what happened and can change nothing any more.
    assert b"so that you can start over" in lost.get(session_url(old)).content
    lost.post(reverse("participate:withdraw", args=[old.token]))
    old.refresh_from_db()
    assert old.status == "abandoned" and old.responses.count() == 1


# ------------------------------------------------------------------ JSON flow


def _api_start(client, study, pid=PID, **extra):
    return client.post(
        f"{API}/studies/{study.slug}/sessions/",
        {"consent": True, "params": {"PROLIFIC_PID": pid}, **extra},
        format="json",
    )


def _api_answer(client, token, position):
    trial = ParticipantSession.objects.get(token=token).trials.get(position=position)
    client.get(f"{API}/sessions/{token}/trial/")
    return client.post(
        f"{API}/sessions/{token}/responses/",
        {"position": position, "answer": answer_for(trial), "interactions": 2},
        format="json",
    )


def test_a_second_client_with_the_same_id_gets_no_token(study):
    victim, attacker = APIClient(), APIClient()
    first = _api_start(victim, study)
    assert first.status_code == 201
    token = first.json()["token"]
    victim.post(f"{API}/sessions/{token}/begin/")
    assert _api_answer(victim, token, 0).status_code == 201

    for extra in ({}, {"token": ""}, {"token": PID}, {"token": "x" * 43}):
        refused = _api_start(attacker, study, **extra)
        assert refused.status_code == 409
        body = refused.json()
        assert body["code"] == "already_started" and body["errors"] == {}
        assert "Prolific" in body["detail"] and "token" not in body
        assert token not in json.dumps(body)

    # Without the token nothing reaches the session: not the trial, an answer or withdrawal.
    assert attacker.get(f"{API}/sessions/{PID}/trial/").status_code == 404
    assert (
        attacker.post(
            f"{API}/sessions/{PID}/responses/", {"position": 1, "answer": "1"}, format="json"
        ).status_code
        == 404
    )
    assert attacker.post(f"{API}/sessions/{PID}/withdraw/").status_code == 404
    session = ParticipantSession.objects.get(token=token)
    assert (session.status, session.current_position) == ("in_progress", 1)
    assert ParticipantSession.objects.filter(study=study).count() == 1

    # The client holding the token resumes, and goes on to the end.
    again = _api_start(victim, study, token=token)
    assert again.status_code == 200 and again.json()["token"] == token
    for position in range(1, session.trial_count):
        assert _api_answer(victim, token, position).status_code == 201
    assert victim.post(f"{API}/sessions/{token}/finish/").status_code == 200


def test_the_api_releases_an_id_and_logs_it(study, researcher_api, other_researcher):
    client = APIClient()
    token = _api_start(client, study).json()["token"]
    client.post(f"{API}/sessions/{token}/begin/")
    _api_answer(client, token, 0)
    session = ParticipantSession.objects.get(token=token)
    url = f"/api/v1/studies/{study.slug}/sessions/{session.pk}/release/"

    outsider = APIClient()
    outsider.force_authenticate(other_researcher)
    assert outsider.post(url, {}, format="json").status_code == 404

    released = researcher_api.post(url, {"reason": "lost the tab"}, format="json")
    assert released.status_code == 200 and released.json()["status"] == "abandoned"
    assert AuditEntry.objects.filter(action="study.session_release", reason="lost the tab").exists()
    again = researcher_api.post(url, {}, format="json")
    assert again.status_code == 400 and "already released" in json.dumps(again.json()["errors"])

    # The old token can no longer act; the id starts afresh; the old answers stay.
    assert client.get(f"{API}/sessions/{token}/trial/").status_code == 410
    assert client.post(f"{API}/sessions/{token}/withdraw/").status_code == 410
    fresh = _api_start(APIClient(), study)
    assert fresh.status_code == 201 and fresh.json()["token"] != token
    assert Response.objects.filter(session=session).count() == 1
    reasons = {d.facts.id: d.reasons for d in study_exclusion(study).decisions}
    assert reasons[session.pk][0][0] == "abandoned"
    counts = researcher_api.get(f"/api/v1/studies/{study.slug}/monitor/").json()["counts"]
    assert (counts["abandoned"], counts["in_progress"], counts["excluded"]) == (1, 1, 1)


def test_a_completed_session_cannot_be_released(study, researcher_api):
    client = APIClient()
    token = _api_start(client, study).json()["token"]
    client.post(f"{API}/sessions/{token}/begin/")
    session = ParticipantSession.objects.get(token=token)
    for position in range(session.trial_count):
        _api_answer(client, token, position)
    url = f"/api/v1/studies/{study.slug}/sessions/{session.pk}/release/"
    refused = researcher_api.post(url, {}, format="json")
    assert refused.status_code == 400
    assert "completed the study" in refused.json()["detail"] + json.dumps(refused.json()["errors"])
    session.refresh_from_db()
    assert session.status == "completed"
    assert not AuditEntry.objects.filter(action="study.session_release").exists()


def test_a_withdrawal_stays_on_record_and_its_id_is_not_released(study, researcher_api):
    client = APIClient()
    token = _api_start(client, study).json()["token"]
    client.post(f"{API}/sessions/{token}/begin/")
    assert client.post(f"{API}/sessions/{token}/withdraw/").status_code == 200
    session = ParticipantSession.objects.get(token=token)
    url = f"/api/v1/studies/{study.slug}/sessions/{session.pk}/release/"
    refused = researcher_api.post(url, {"reason": "asked to come back"}, format="json")
    assert refused.status_code == 400
    assert "withdrew" in json.dumps(refused.json()["errors"])
    session.refresh_from_db()
    assert session.status == "withdrawn" and session.withdrawn_at is not None
    assert not AuditEntry.objects.filter(action="study.session_release").exists()
