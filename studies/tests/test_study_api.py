"""Study set-up and monitoring over the REST API."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from studies.models import ParticipantSession, Study
from studies.services.sessions import Identity, response_record, session_start
from studies.tests.factories import answer_for, make_chart_set, make_study, png_bytes

pytestmark = pytest.mark.django_db


def test_a_study_is_created_with_its_settings_in_one_call(researcher_api):
    response = researcher_api.post(
        "/api/v1/studies/",
        {
            "title": "Log axes",
            "consent_text": "I agree.",
            "platform": "mturk",
            "time_limit_minutes": 20,
            "min_gap": 3,
            "completion_code": "XYZ",
        },
        format="json",
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["platform"] == "mturk" and body["min_gap"] == 3 and body["status"] == "draft"
    assert body["participant_link"].endswith(
        "?workerId=${workerId}&assignmentId=${assignmentId}&hitId=${hitId}"
    )
    assert body["allowed_status_changes"] == ["pilot", "live"]


def test_invalid_settings_are_a_400_naming_the_field(researcher_api, researcher):
    study = make_study(researcher, status="draft")
    response = researcher_api.patch(
        f"/api/v1/studies/{study.slug}/", {"completion_url": "mailto:x@y"}, format="json"
    )
    assert response.status_code == 400 and "completion_url" in response.json()["errors"]
    response = researcher_api.patch(
        f"/api/v1/studies/{study.slug}/", {"time_limit_minutes": -5}, format="json"
    )
    assert response.status_code == 400


def test_pairs_checks_and_status_are_set_over_the_api(researcher_api, researcher):
    Study.objects.create(owner=researcher, title="API", slug="api-study")
    chart_set = make_chart_set(researcher, pairs=3)
    refused = researcher_api.post(
        "/api/v1/studies/api-study/status/", {"status": "live"}, format="json"
    )
    assert refused.status_code == 400 and any(
        "chart pair" in e for e in refused.json()["errors"]["status"]
    )

    unknown = researcher_api.put(
        "/api/v1/studies/api-study/pairs/", {"chart_set": "no-such-set", "all": True}, format="json"
    )
    assert unknown.status_code == 400 and "no-such-set" in unknown.json()["errors"]["chart_set"][0]
    pairs = researcher_api.put(
        "/api/v1/studies/api-study/pairs/",
        {"chart_set": chart_set.slug, "all": True},
        format="json",
    )
    assert pairs.status_code == 200 and [p["code"] for p in pairs.json()] == [
        "G1_Q1",
        "G1_Q2",
        "G1_Q3",
    ]

    check = researcher_api.post(
        "/api/v1/studies/api-study/attention-checks/",
        {
            "kind": "instructed",
            "prompt": "Pick 'Blue'.",
            "options": ["Red", "Blue"],
            "answer_key": "Blue",
        },
        format="json",
    )
    assert check.status_code == 201, check.json()
    sanity = researcher_api.post(
        "/api/v1/studies/api-study/attention-checks/",
        {
            "kind": "sanity",
            "prompt": "How many?",
            "answer_type": "free_text",
            "answer_key": "10",
            "image": SimpleUploadedFile("c.png", png_bytes(), content_type="image/png"),
        },
        format="multipart",
    )
    assert sanity.status_code == 201 and sanity.json()["image_url"].startswith("http")

    researcher_api.patch(
        "/api/v1/studies/api-study/",
        {"consent_text": "Yes", "instructions_text": "Go", "completion_code": "OK1"},
        format="json",
    )
    live = researcher_api.post(
        "/api/v1/studies/api-study/status/", {"status": "live"}, format="json"
    )
    assert live.status_code == 200 and live.json()["status"] == "live"
    assert live.json()["pair_count"] == 3 and live.json()["attention_check_count"] == 2


@pytest.mark.parametrize(
    "name, data, says",
    [
        ("chart.pdf", b"%PDF-1.7 a chart", "This is a PDF file; please save the chart as"),
        ("chart.svg", b"<svg xmlns='http://www.w3.org/2000/svg'/>", "This is an SVG file"),
        ("chart.png", b"", "The submitted file is empty."),
    ],
)
def test_a_sanity_chart_upload_that_is_no_image_says_what_to_do(
    researcher_api, researcher, name, data, says
):
    study = make_study(researcher, status="draft")
    checks = study.attention_checks.count()
    refused = researcher_api.post(
        f"/api/v1/studies/{study.slug}/attention-checks/",
        {
            "kind": "sanity", "prompt": "How many?", "answer_type": "free_text",
            "answer_key": "10", "image": SimpleUploadedFile(name, data),
        },
        format="multipart",
    )  # fmt: skip
    assert refused.status_code == 400
    assert refused.json()["errors"]["image"][0].startswith(says)
    assert study.attention_checks.count() == checks


def test_a_video_is_uploaded_and_checked(researcher_api, researcher):
    study = make_study(researcher, status="draft")
    url = f"/api/v1/studies/{study.slug}/video/"
    bad = researcher_api.put(
        url, {"video": SimpleUploadedFile("v.mp4", b"nope")}, format="multipart"
    )
    assert bad.status_code == 400 and "instructions_video" in bad.json()["errors"]
    ok = researcher_api.put(
        url, {"video": SimpleUploadedFile("v.ogv", b"OggS" + b"\0" * 60)}, format="multipart"
    )
    assert ok.status_code == 200 and ok.json()["instructions_video_url"].endswith(".ogv")
    assert researcher_api.delete(url).status_code == 204


def test_monitoring_and_sessions_over_the_api(researcher_api, researcher):
    study = make_study(researcher, pairs=2)
    session = session_start(
        study=study, identity=Identity("prolific", "P9", {"PROLIFIC_PID": "P9"})
    ).session
    for trial in session.trials.select_related("question", "attention_check").order_by("position"):
        response_record(token=session.token, position=trial.position, answer=answer_for(trial))
    monitor = researcher_api.get(f"/api/v1/studies/{study.slug}/monitor/").json()
    assert monitor["counts"]["completed"] == 1 and monitor["counts"]["included"] == 1
    assert monitor["attention_answered"] == 2 and monitor["attention_failure_rate"] == 0
    assert len(monitor["balance"]) == 2 and monitor["max_imbalance"] == 1
    listing = researcher_api.get(f"/api/v1/studies/{study.slug}/sessions/").json()
    assert listing["count"] == 1 and listing["results"][0]["external_id"] == "P9"
    detail = researcher_api.get(f"/api/v1/studies/{study.slug}/sessions/{session.pk}/").json()
    assert detail["order_seed"] == session.order_seed and len(detail["trials"]) == 6
    assert all(t["response"]["correct"] for t in detail["trials"])


def test_preview_over_the_api(researcher_api, researcher):
    study = make_study(researcher, status="draft")
    response = researcher_api.post(f"/api/v1/studies/{study.slug}/preview/")
    assert response.status_code == 201
    assert ParticipantSession.objects.get(token=response.json()["token"]).is_preview
    empty = Study.objects.create(owner=researcher, title="Empty", slug="empty")
    assert researcher_api.post(f"/api/v1/studies/{empty.slug}/preview/").status_code == 400


def test_others_studies_are_404_over_the_api(researcher_api, other_researcher):
    theirs = make_study(other_researcher)
    base = f"/api/v1/studies/{theirs.slug}"
    for path in ("/", "/pairs/", "/attention-checks/", "/monitor/", "/sessions/"):
        assert researcher_api.get(base + path).status_code == 404, path
    assert (
        researcher_api.post(base + "/status/", {"status": "closed"}, format="json").status_code
        == 404
    )
    assert researcher_api.patch(base + "/", {"title": "Mine now"}, format="json").status_code == 404
    theirs.refresh_from_db()
    assert theirs.status == "live" and theirs.title != "Mine now"


def test_annotators_cannot_use_the_study_api(annotator_api, researcher):
    study = make_study(researcher)
    assert annotator_api.get(f"/api/v1/studies/{study.slug}/monitor/").status_code == 403
