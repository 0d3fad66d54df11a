"""Quality pages and API: annotators' refusals as clear 4xx, researchers' funnel, gold mode, decisions."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from annotation.models import Qualification, RoundAttempt
from annotation.services.quality import annotator_decide, policy_for
from annotation.tests.quality_setup import GOLD_A, qualify, with_rounds
from core.models import AuditEntry

pytestmark = pytest.mark.django_db


@pytest.fixture
def quality(project, make_items, researcher):
    # One attempt per round: these tests are about what failing the only attempt does.
    return with_rounds(project, make_items, researcher, max_attempts=1)


def _api(user):
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_rounds_out_of_order_and_retakes_are_refused_with_clear_4xx(project, quality, members):
    (anna,) = members(1)
    api = _api(anna)
    base = f"/api/v1/annotator/projects/{project.slug}/rounds"
    early = api.post(f"{base}/2/start/")
    assert early.status_code == 409 and "round 1 first" in early.json()["detail"]
    assert (
        api.post(f"{base}/2/items/1/answer/", {"labels": [[], []]}, format="json").status_code
        == 409
    )
    assert api.post(f"{base}/1/start/").status_code == 201
    bad = api.post(f"{base}/1/items/1/answer/", {"labels": [["nope"], []]}, format="json")
    assert bad.status_code == 400 and "unknown category" in str(bad.json()["errors"])
    assert (
        api.post(f"{base}/1/items/9/answer/", {"labels": [[], []]}, format="json").status_code
        == 404
    )
    assert (
        api.post(f"{base}/1/items/1/answer/", {"labels": [[], []]}, format="json").status_code
        == 201
    )
    retake = api.post(f"{base}/1/start/")
    assert retake.status_code == 403 and "closed to you" in retake.json()["detail"]
    work = api.post(f"/api/v1/annotator/projects/{project.slug}/next/")
    assert work.status_code == 403


def test_a_retry_too_soon_is_a_429(project, quality, members):
    policy = policy_for(project)
    policy.max_attempts = 3
    policy.save()
    (anna,) = members(1)
    api = _api(anna)
    base = f"/api/v1/annotator/projects/{project.slug}/rounds/1"
    api.post(f"{base}/start/")
    api.post(f"{base}/items/1/answer/", {"labels": [[], []]}, format="json")
    too_soon = api.post(f"{base}/start/")
    assert too_soon.status_code == 429 and "again after" in too_soon.json()["detail"]
    # When to come back, in seconds, as clients and proxies read it from a 429.
    assert 0 < int(too_soon["Retry-After"]) <= (policy.retry_delay_minutes + 1) * 60
    RoundAttempt.objects.update(finished_at=timezone.now() - timedelta(hours=2))
    assert api.post(f"{base}/start/").json()["number"] == 2


def test_the_work_page_sends_unqualified_annotators_to_the_rounds(
    project, quality, members, password
):
    (anna,) = members(1)
    client = Client()
    client.login(username=anna.username, password=password)
    response = client.get(f"/annotation/p/{project.slug}/work/")
    assert response.status_code == 302 and response["Location"].endswith("/qualify/")
    overview = client.get(f"/annotation/p/{project.slug}/qualify/")
    assert (
        b"Start round 1" in overview.content and b"Opens once you pass round 1" in overview.content
    )
    client.post(f"/annotation/p/{project.slug}/qualify/1/start/")
    page = client.get(f"/annotation/p/{project.slug}/qualify/1/")
    assert b"Qualification round 1" in page.content and b"Caption 1 of 1" in page.content


def test_a_paused_annotator_sees_a_polite_page(project, quality, members, password):
    (anna,) = members(1)
    qualify(project, anna)
    Qualification.objects.filter(annotator=anna).update(work_state="paused")
    client = Client()
    client.login(username=anna.username, password=password)
    response = client.get(f"/annotation/p/{project.slug}/work/")
    assert response.status_code == 403 and b"Thank you for your work so far" in response.content


def test_researchers_see_the_funnel_answers_beside_gold_and_paused_notice(
    project, quality, members, researcher, password
):
    anna, ben, cleo = members(3)
    qualify(project, anna)
    api = _api(ben)
    api.post(f"/api/v1/annotator/projects/{project.slug}/rounds/1/start/")
    api.post(f"/api/v1/annotator/projects/{project.slug}/rounds/1/items/1/answer/", {"labels": [[], []]}, format="json")  # fmt: skip
    Qualification.objects.filter(annotator=anna).update(work_state="paused", controls_done=5)
    overview = _api(researcher).get(f"/api/v1/projects/{project.slug}/quality/overview/").json()
    funnel = {step["label"]: step["count"] for step in overview["funnel"]}
    assert funnel == {"Invited": 3, "Started": 2, "Passed round 1": 1, "Passed round 2": 1,
                      "Qualified": 1, "Eliminated": 1}  # fmt: skip
    # Qualified by hand: counted as qualified, not as having started or passed a round.
    annotator_decide(project=project, annotator=cleo, action="qualify", reason="Known expert",
                     actor=researcher)  # fmt: skip
    overview = _api(researcher).get(f"/api/v1/projects/{project.slug}/quality/overview/").json()
    funnel = {step["label"]: step["count"] for step in overview["funnel"]}
    assert funnel == {"Invited": 3, "Started": 2, "Passed round 1": 1, "Passed round 2": 1,
                      "Qualified": 2, "Qualified by hand": 1, "Eliminated": 1}  # fmt: skip
    client = Client()
    client.login(username=researcher.username, password=password)
    assert b"1 annotator paused" in client.get(f"/annotation/projects/{project.slug}/").content
    dashboard = client.get(f"/annotation/projects/{project.slug}/quality/")
    assert dashboard.status_code == 200 and b"Qualification funnel" in dashboard.content
    detail = client.get(f"/annotation/projects/{project.slug}/quality/annotators/{ben.pk}/")
    assert (
        detail.status_code == 200
        and b"value_error" in detail.content
        and b"failed" in detail.content
    )
    gold_page = client.get(
        f"/annotation/projects/{project.slug}/quality/gold/{quality['gold'][0].item_id}/"
    )
    assert gold_page.status_code == 200 and b"Gold mode" in gold_page.content


def test_decisions_through_the_api_need_a_reason_and_are_logged(
    project, quality, members, researcher
):
    (anna,) = members(1)
    api = _api(researcher)
    url = f"/api/v1/projects/{project.slug}/annotators/{anna.username}"
    assert api.post(f"{url}/qualify/", {}, format="json").status_code == 400
    assert api.post(f"{url}/promote/", {"reason": "x"}, format="json").status_code == 404
    assert api.post(f"{url}/resume/", {"reason": "x"}, format="json").status_code == 409
    done = api.post(f"{url}/qualify/", {"reason": "Expert"}, format="json")
    assert done.status_code == 200
    assert AuditEntry.objects.filter(
        action="annotation.annotator_qualify", reason="Expert"
    ).exists()


def test_gold_mode_saves_gold_and_rounds_can_be_added_over_the_api(project, make_items, researcher):
    (item,) = make_items(project, 1)
    api = _api(researcher)
    saved = api.post(
        f"/api/v1/projects/{project.slug}/gold/{item.pk}/", {"labels": GOLD_A}, format="json"
    )
    assert saved.status_code == 201 and saved.json()["labels"] == GOLD_A
    assert api.put(f"/api/v1/projects/{project.slug}/gold/{item.pk}/draft/", {"labels": []}, format="json").status_code == 200  # fmt: skip
    bad = api.post(
        f"/api/v1/projects/{project.slug}/gold/{item.pk}/", {"labels": [["x"]]}, format="json"
    )
    assert bad.status_code == 400
    (plain,) = make_items(project, 1)
    refused = api.post(
        f"/api/v1/projects/{project.slug}/rounds/",
        {"title": "R", "items": [plain.pk]},
        format="json",
    )
    assert refused.status_code == 400
    created = api.post(
        f"/api/v1/projects/{project.slug}/rounds/",
        {"title": "R", "items": [item.pk]},
        format="json",
    )
    assert created.status_code == 201 and created.json()["position"] == 1
    patched = api.patch(
        f"/api/v1/projects/{project.slug}/quality/", {"control_rule": "bogus"}, format="json"
    )
    assert patched.status_code == 400
    # A key these endpoints do not take is named, not dropped (as everywhere in the API).
    unknown = api.patch(f"/api/v1/projects/{project.slug}/quality/", {"nonsense": 1}, format="json")
    assert unknown.status_code == 400 and "nonsense" in unknown.json()["errors"]
    kept = api.patch(
        f"/api/v1/projects/{project.slug}/quality/", {"max_attempts": 3}, format="json"
    )
    assert kept.status_code == 200 and kept.json()["max_attempts"] == 3
    draft = f"/api/v1/projects/{project.slug}/gold/{item.pk}/draft/"
    assert api.put(draft, {"labels": [[]], "active_seconds": 2.5}, format="json").status_code == 200
    refused = api.put(draft, {"labels": [[]], "nonsense": 1}, format="json")
    assert refused.status_code == 400 and "nonsense" in refused.json()["errors"]


def test_other_researchers_get_404(project, quality, other_researcher):
    api = _api(other_researcher)
    assert api.get(f"/api/v1/projects/{project.slug}/gold/").status_code == 404
