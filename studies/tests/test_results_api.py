"""The results API: results, compute, decisions, exports; other researchers get 404."""

import pytest
from django.urls import reverse

from core.models import Job
from studies.models import ParticipantSession, Response
from studies.tests.factories import simulated_study

pytestmark = pytest.mark.django_db


def test_results_come_with_the_job_state_and_estimators(researcher_api, researcher):
    study = simulated_study(researcher, participants=10)
    body = researcher_api.get(reverse("api:study-results", args=[study.slug])).json()
    assert body["stale"] is False and body["computed_from_responses"] == body["responses_now"]
    results = body["results"]
    assert "svg" not in results and results["funnel"]["took_part"] == 10
    assert {r["estimator"] for r in results["log_odds"]} == {
        "BinomialBayesMixedGLM (variational Bayes)",
        "GEE (exchangeable, participant clusters)",
    }
    with_svg = researcher_api.get(reverse("api:study-results", args=[study.slug]) + "?svg=1").json()
    assert "<svg" in with_svg["results"]["svg"]["sorted"]


def test_compute_returns_a_job(researcher_api, researcher, django_capture_on_commit_callbacks):
    study = simulated_study(researcher, participants=4, compute=False)
    with django_capture_on_commit_callbacks(execute=True):
        response = researcher_api.post(reverse("api:study-results-compute", args=[study.slug]))
    assert response.status_code == 202
    assert Job.objects.get(pk=response.json()["id"]).state == "done"


def test_decisions_list_and_override(researcher_api, researcher):
    study = simulated_study(researcher, participants=4, compute=False)
    url = reverse("api:study-results-participants", args=[study.slug])
    decisions = researcher_api.get(url).json()
    assert len(decisions) == 4
    session = ParticipantSession.objects.filter(study=study, status="completed").first()
    decide = reverse("api:study-results-decision", args=[study.slug, session.pk])
    bad = researcher_api.post(decide, {"decision": "exclude"}, format="json")
    assert bad.status_code == 400 and "reason" in bad.json()["errors"]
    ok = researcher_api.post(decide, {"decision": "exclude", "reason": "Bot-like"}, format="json")
    assert ok.status_code == 200 and ok.json()["included"] is False and ok.json()["overridden"]
    missing = reverse("api:study-results-decision", args=[study.slug, 999999])
    response = researcher_api.post(missing, {"decision": "exclude", "reason": "x"}, format="json")
    assert response.status_code == 400 and "No such participant" in str(response.json())


def test_an_export_job_gives_a_download_url(
    researcher_api, researcher, django_capture_on_commit_callbacks
):
    study = simulated_study(researcher, participants=3, compute=False)
    url = reverse("api:study-results-export", args=[study.slug])
    assert researcher_api.post(url, {"format": "xlsx"}, format="json").status_code == 400
    with django_capture_on_commit_callbacks(execute=True):
        response = researcher_api.post(url, {"format": "hmi-zip"}, format="json")
    assert response.status_code == 202
    job = researcher_api.get(reverse("api:job-detail", args=[response.json()["id"]])).json()
    assert job["state"] == "done" and job["download_url"]
    download = researcher_api.get(job["download_url"])
    assert download.status_code == 200
    assert b"".join(download.streaming_content)[:2] == b"PK"


def test_another_researcher_gets_404_everywhere(api_client, other_researcher, researcher):
    study = simulated_study(researcher, participants=2, compute=False)
    api_client.force_authenticate(other_researcher)
    session = ParticipantSession.objects.filter(study=study).first()
    for name, args, method in (
        ("api:study-results", [study.slug], "get"),
        ("api:study-results-compute", [study.slug], "post"),
        ("api:study-results-participants", [study.slug], "get"),
        ("api:study-results-decision", [study.slug, session.pk], "post"),
        ("api:study-results-export", [study.slug], "post"),
    ):
        response = getattr(api_client, method)(reverse(name, args=args), {}, format="json")
        assert response.status_code == 404, name


def test_a_decision_or_a_rule_change_makes_the_results_stale(researcher_api, researcher, client):
    from studies.services.study import study_update

    study = simulated_study(researcher, participants=6)
    results = reverse("api:study-results", args=[study.slug])
    assert researcher_api.get(results).json()["stale"] is False
    session = ParticipantSession.objects.filter(study=study, status="completed").first()
    decide = reverse("api:study-results-decision", args=[study.slug, session.pk])
    researcher_api.post(decide, {"decision": "exclude", "reason": "Bot-like"}, format="json")
    assert researcher_api.get(results).json()["stale"] is True
    client.force_login(researcher)
    page = client.get(reverse("studies:results", args=[study.slug])).content.decode()
    assert "Inclusion decisions or exclusion rules changed since" in page

    fresh = simulated_study(researcher, participants=6)
    fresh_url = reverse("api:study-results", args=[fresh.slug])
    study_update(study=fresh, actor=researcher, title="Renamed")
    assert researcher_api.get(fresh_url).json()["stale"] is False
    study_update(
        study=fresh, actor=researcher, max_attention_failures=fresh.max_attention_failures + 1
    )
    assert researcher_api.get(fresh_url).json()["stale"] is True


def test_the_api_says_why_the_results_are_stale_as_the_page_does(
    researcher_api, researcher, client
):
    study = simulated_study(researcher, participants=6)
    url = reverse("api:study-results", args=[study.slug])
    page_url = reverse("studies:results", args=[study.slug])
    client.force_login(researcher)
    assert researcher_api.get(url).json()["stale_reason"] is None

    session = ParticipantSession.objects.filter(study=study, status="completed").first()
    decide = reverse("api:study-results-decision", args=[study.slug, session.pk])
    researcher_api.post(decide, {"decision": "exclude", "reason": "Bot-like"}, format="json")
    reason = researcher_api.get(url).json()["stale_reason"]
    assert reason["code"] == "inputs_changed"
    assert f"<strong>{reason['text']}</strong>" in client.get(page_url).content.decode()

    Response.objects.filter(session=session).first().delete()
    body = researcher_api.get(url).json()
    assert body["stale"] is True and body["stale_reason"]["code"] == "responses_changed"
    assert f"There are {body['responses_now']} responses now" in body["stale_reason"]["text"]
    page = client.get(page_url).content.decode()
    assert f"<strong>{body['stale_reason']['text']}</strong>" in page


def _component(schemas: dict, node: dict) -> dict:
    """The component a property refers to (drf-spectacular wraps the reference in allOf)."""
    return schemas[node["allOf"][0]["$ref"].rsplit("/", 1)[-1]]


def test_the_schema_documents_the_stale_reason(client):
    schemas = client.get("/api/schema/?format=json").json()["components"]["schemas"]
    field = schemas["Results"]["properties"]["stale_reason"]
    assert field["nullable"] is True and "out of date" in field["description"]
    code = _component(schemas, field)["properties"]["code"]
    assert set(_component(schemas, code)["enum"]) == {"responses_changed", "inputs_changed"}
