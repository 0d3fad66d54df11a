"""The annotator's API: next item, drafts, submits and skips, and the 4xx for every bad submit."""

from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.models import Assignment, LabelSet
from annotation.services import project_update
from core.tests.factories import UserFactory

pytestmark = pytest.mark.django_db

LABELS = [["value_error"], []]


@pytest.fixture
def anna(members):
    return members(1)[0]


@pytest.fixture
def lease(project, make_items, anna, client_for):
    make_items(project, 3)
    response = client_for(anna).post(f"/api/v1/annotator/projects/{project.slug}/next/")
    assert response.status_code == 200, response.content
    return response.json()


def test_next_gives_the_caption_the_chart_and_the_categories(lease, project):
    assert lease["item"]["sentences"] == ["Sales rose to 20.4% in 2010.", "They fell later."]
    assert lease["item"]["image"].startswith("https://charts.example.org/")
    assert [c["shortcut"] for c in lease["categories"]] == list("vltmogn")
    assert set(lease["categories"][0]) == {"key", "name", "definition", "example", "shortcut"}
    assert lease["draft"] is None and lease["state"] == "leased"


def test_next_says_no_content_when_nothing_is_left(project, anna, client_for):
    response = client_for(anna).post(f"/api/v1/annotator/projects/{project.slug}/next/")
    assert response.status_code == 204


def test_next_in_a_project_not_joined_is_404(project, make_user, client_for):
    response = client_for(make_user("annotator")).post(
        f"/api/v1/annotator/projects/{project.slug}/next/"
    )
    assert response.status_code == 404
    assert set(response.json()) == {"detail", "errors"}


def test_a_draft_is_saved_and_comes_back_with_the_lease(lease, anna, client_for, project):
    client = client_for(anna)
    saved = client.put(
        f"/api/v1/annotator/assignments/{lease['id']}/draft/",
        {"labels": LABELS, "active_seconds": 3},
        format="json",
    )
    assert saved.status_code == 200, saved.content
    again = client.post(f"/api/v1/annotator/projects/{project.slug}/next/").json()
    assert again["id"] == lease["id"] and again["draft"] == LABELS
    assert 0 < again["active_seconds"] <= 3


def test_active_time_cannot_run_ahead_of_the_clock(lease, anna, client_for):
    client_for(anna).put(
        f"/api/v1/annotator/assignments/{lease['id']}/draft/",
        {"labels": LABELS, "active_seconds": 5000},
        format="json",
    )
    assert Assignment.objects.get(pk=lease["id"]).active_seconds < 10


def test_submit_stores_the_label_set_once(lease, anna, client_for):
    client = client_for(anna)
    url = f"/api/v1/annotator/assignments/{lease['id']}/submit/"
    first = client.post(url, {"labels": LABELS, "active_seconds": 2}, format="json")
    assert first.status_code == 201, first.content
    assert first.json()["labels"] == LABELS

    second = client.post(url, {"labels": [["trend_error"], ["label_error"]]}, format="json")
    assert second.status_code == 409
    assert "already submitted" in second.json()["detail"]
    assert list(LabelSet.objects.values_list("labels", flat=True)) == [LABELS]


def test_a_retried_submit_answers_as_the_first_did_without_storing_twice(lease, anna, client_for):
    client = client_for(anna)
    url = f"/api/v1/annotator/assignments/{lease['id']}/submit/"
    first = client.post(url, {"labels": LABELS, "active_seconds": 2}, format="json")
    retry = client.post(url, {"labels": LABELS, "active_seconds": 2}, format="json")
    assert (first.status_code, retry.status_code) == (201, 200)
    assert retry.json() == first.json()
    assert LabelSet.objects.count() == 1
    # Another user's retry of the same request is nobody's business.
    other = client_for(UserFactory(role="annotator")).post(url, {"labels": LABELS}, format="json")
    assert other.status_code in (403, 404)


def test_submit_with_an_unknown_category_is_400_and_stores_nothing(lease, anna, client_for):
    response = client_for(anna).post(
        f"/api/v1/annotator/assignments/{lease['id']}/submit/",
        {"labels": [["typo_error"], []]},
        format="json",
    )
    assert response.status_code == 400
    assert "unknown category 'typo_error'" in response.json()["errors"]["labels"][0]
    assert not LabelSet.objects.exists()
    assert Assignment.objects.get(pk=lease["id"]).state == Assignment.State.LEASED


def test_submit_with_the_wrong_number_of_sentences_is_400(lease, anna, client_for):
    response = client_for(anna).post(
        f"/api/v1/annotator/assignments/{lease['id']}/submit/", {"labels": [[]]}, format="json"
    )
    assert response.status_code == 400
    assert "2 sentences but 1 label list" in response.json()["detail"]


def test_a_submit_after_the_lease_ran_out_is_kept_while_nobody_took_the_item(
    lease, anna, client_for
):
    Assignment.objects.filter(pk=lease["id"]).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )
    response = client_for(anna).post(
        f"/api/v1/annotator/assignments/{lease['id']}/submit/", {"labels": LABELS}, format="json"
    )
    assert response.status_code == 201
    assignment = Assignment.objects.select_related("item").get(pk=lease["id"])
    assert assignment.state == Assignment.State.SUBMITTED
    assert assignment.item.filled_count == 1
    assert LabelSet.objects.get().labels == LABELS


def test_a_submit_after_the_item_was_taken_over_is_409_and_stores_nothing(
    lease, anna, members, client_for, project
):
    project_update(project=project, annotators_per_item=1)
    Assignment.objects.filter(pk=lease["id"]).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )
    (bob,) = members(1)
    taken = client_for(bob).post(f"/api/v1/annotator/projects/{project.slug}/next/")
    assert taken.status_code == 200
    item_id = Assignment.objects.get(pk=lease["id"]).item_id
    assert Assignment.objects.get(annotator=bob).item_id == item_id  # the first in the queue
    response = client_for(anna).post(
        f"/api/v1/annotator/assignments/{lease['id']}/submit/", {"labels": LABELS}, format="json"
    )
    assert response.status_code == 409
    assert "another annotator has taken it over" in response.json()["detail"]
    assignment = Assignment.objects.select_related("item").get(pk=lease["id"])
    assert assignment.state == Assignment.State.EXPIRED
    assert assignment.item.filled_count == 1  # bob's
    draft = client_for(anna).put(
        f"/api/v1/annotator/assignments/{lease['id']}/draft/", {"labels": LABELS}, format="json"
    )
    assert draft.status_code == 409
    assert not LabelSet.objects.exists()


def test_a_draft_after_the_lease_ran_out_is_kept_while_nobody_took_the_item(
    lease, anna, client_for
):
    Assignment.objects.filter(pk=lease["id"]).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )
    response = client_for(anna).put(
        f"/api/v1/annotator/assignments/{lease['id']}/draft/", {"labels": LABELS}, format="json"
    )
    assert response.status_code == 200
    assignment = Assignment.objects.get(pk=lease["id"])
    assert assignment.state == Assignment.State.LEASED and assignment.draft == LABELS
    assert assignment.expires_at > timezone.now()


def test_submitting_someone_elses_item_is_404_and_leaves_it_alone(
    lease, members, client_for, project
):
    (bob,) = members(1)
    response = client_for(bob).post(
        f"/api/v1/annotator/assignments/{lease['id']}/submit/", {"labels": LABELS}, format="json"
    )
    assert response.status_code == 404
    assert client_for(bob).get(f"/api/v1/annotator/assignments/{lease['id']}/").status_code == 404
    assert Assignment.objects.get(pk=lease["id"]).state == Assignment.State.LEASED
    assert not LabelSet.objects.exists()


def test_a_submit_after_a_released_lease_is_409_and_the_first_labels_stay(
    lease, anna, client_for, researcher_api, project
):
    client = client_for(anna)
    released = researcher_api.post(
        f"/api/v1/projects/{project.slug}/leases/{lease['id']}/release/", {}, format="json"
    )
    assert released.status_code == 200
    response = client.post(
        f"/api/v1/annotator/assignments/{lease['id']}/submit/", {"labels": LABELS}, format="json"
    )
    assert response.status_code == 409
    assert "released" in response.json()["detail"]


def test_skip_needs_a_reason_and_then_ends_the_lease(lease, anna, client_for):
    client = client_for(anna)
    url = f"/api/v1/annotator/assignments/{lease['id']}/skip/"
    assert client.post(url, {"reason": ""}, format="json").status_code == 400
    response = client.post(url, {"reason": "The image is broken"}, format="json")
    assert response.status_code == 200 and response.json()["state"] == "skipped"
    retry = client.post(url, {"reason": "The image is broken"}, format="json")
    assert retry.status_code == 200 and retry.json()["state"] == "skipped"
    again = client.post(url, {"reason": "twice"}, format="json")
    assert again.status_code == 409 and "already skipped" in again.json()["detail"]
    assert Assignment.objects.get(pk=lease["id"]).skip_reason == "The image is broken"


def test_progress_reports_done_assigned_and_estimated_pay(lease, anna, client_for, project):
    client = client_for(anna)
    Assignment.objects.filter(pk=lease["id"]).update(
        leased_at=timezone.now() - timedelta(minutes=3)
    )
    client.post(
        f"/api/v1/annotator/assignments/{lease['id']}/submit/",
        {"labels": LABELS, "active_seconds": 119},
        format="json",
    )
    url = f"/api/v1/annotator/projects/{project.slug}/progress/"
    assert client.get(url).json()["hourly"] is None  # "after a few minutes of work"
    Assignment.objects.filter(pk=lease["id"]).update(active_seconds=120)
    progress = client.get(url).json()
    assert progress["done"] == 1 and progress["assigned"] == 1
    assert progress["left_for_you"] == 2
    # $0.50 for 2 minutes of active work = $15.00 an hour.
    assert progress["hourly"] == "15.00" and progress["target_hourly"] == "15.00"


def test_researchers_cannot_use_the_annotator_endpoints(researcher_api, project, lease):
    assert (
        researcher_api.post(f"/api/v1/annotator/projects/{project.slug}/next/").status_code == 403
    )
