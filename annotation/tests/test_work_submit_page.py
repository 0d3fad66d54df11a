"""The work page's submit: JSON for the page's script (the next item rendered), a plain form without it."""

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.models import Assignment, LabelSet
from annotation.services import assignment_next

pytestmark = pytest.mark.django_db


def _url(project, lease):
    return f"/annotation/p/{project.slug}/work/{lease.pk}/submit/"


def _post_json(client, url, body):
    return client.post(url, json.dumps(body), content_type="application/json")


def _seen(lease):
    """The item has been on screen for a while (the page refuses a submit right after it appears)."""
    Assignment.objects.filter(pk=lease.pk).update(leased_at=timezone.now() - timedelta(seconds=30))
    return lease


def test_the_script_gets_the_next_item_rendered_with_its_state(
    signed_in_member, project, make_items
):
    make_items(project, 2)
    make_items(project, 1, sentences=["One.", "Two.", "Three <b>bold</b>."])
    lease = _seen(assignment_next(project=project, annotator=signed_in_member.user))
    response = _post_json(signed_in_member, _url(project, lease), {"labels": [["value_error"], []]})
    assert response.status_code == 200
    data = response.json()
    following = Assignment.objects.get(annotator=signed_in_member.user, state="leased")
    assert data["state"]["assignment"] == following.pk != lease.pk
    assert data["state"]["urls"]["submit"] == _url(project, following)
    assert data["state"]["urls"]["skip"].endswith(f"/work/{following.pk}/skip/")
    assert data["rows"].count('class="toggle"') == 7 * len(following.item.sentences)
    assert "<b>" not in data["rows"]  # the template escapes caption text
    assert "<strong>Item 2</strong>," in data["progress"]
    assert LabelSet.objects.get(assignment=lease).labels == [["value_error"], []]


def test_the_last_item_sends_the_script_to_the_work_page(signed_in_member, project, make_items):
    make_items(project, 1)
    lease = _seen(assignment_next(project=project, annotator=signed_in_member.user))
    response = _post_json(signed_in_member, _url(project, lease), {"labels": [[], []]})
    assert response.json() == {"url": f"/annotation/p/{project.slug}/work/"}
    assert not Assignment.objects.filter(annotator=signed_in_member.user, state="leased").exists()


def test_problems_are_clear_messages_never_500(signed_in_member, project, make_items):
    make_items(project, 2)
    lease = _seen(assignment_next(project=project, annotator=signed_in_member.user))
    bad = _post_json(signed_in_member, _url(project, lease), {"labels": [["nope"], []]})
    assert bad.status_code == 400 and "unknown category" in bad.json()["detail"]
    garbled = signed_in_member.post(_url(project, lease), "{", content_type="application/json")
    assert garbled.status_code == 400 and garbled.json()["detail"]
    assert (
        _post_json(signed_in_member, _url(project, lease), {"labels": [[], []]}).status_code == 200
    )
    again = _post_json(signed_in_member, _url(project, lease), {"labels": [["value_error"], []]})
    assert again.status_code == 409 and "first labels are kept" in again.json()["detail"]
    assert LabelSet.objects.count() == 1


def test_a_submit_right_after_the_item_appeared_is_refused_and_the_item_stays(
    signed_in_member, project, make_items
):
    make_items(project, 2)
    first = _seen(assignment_next(project=project, annotator=signed_in_member.user))
    answer = _post_json(signed_in_member, _url(project, first), {"labels": [[], []]}).json()
    following = Assignment.objects.get(pk=answer["state"]["assignment"])
    # A second Enter meant for the first item arrives as the next one appears.
    too_soon = _post_json(signed_in_member, _url(project, following), {"labels": [[], []]})
    assert too_soon.status_code == 400
    assert "appeared only a moment ago" in too_soon.json()["detail"]
    following.refresh_from_db()
    assert following.state == Assignment.State.LEASED
    assert not LabelSet.objects.filter(assignment=following).exists()
    # Once the annotator has had it on screen, it submits.
    _seen(following)
    later = _post_json(signed_in_member, _url(project, following), {"labels": [[], []]})
    assert later.status_code == 200
    assert LabelSet.objects.filter(assignment=following).exists()


def test_without_javascript_the_form_stores_the_labels_and_the_next_item_follows(
    signed_in_member, project, make_items
):
    make_items(project, 2)
    lease = assignment_next(project=project, annotator=signed_in_member.user)
    page = signed_in_member.get(f"/annotation/p/{project.slug}/work/").content.decode()
    assert 'id="noscript-submit"' in page and _url(project, lease) in page
    response = signed_in_member.post(
        _url(project, lease), {"sentences": "2", "s1": ["value_error", "trend_error"], "s2": []}
    )
    assert response.status_code == 302 and response["Location"].endswith("/work/")
    assert LabelSet.objects.get(assignment=lease).labels == [["value_error", "trend_error"], []]
    assert Assignment.objects.filter(annotator=signed_in_member.user, state="leased").count() == 1
    page = signed_in_member.get(response["Location"]).content.decode()
    assert "Submitted. Here is your next item." in page


def test_without_javascript_an_item_can_be_skipped_with_a_reason(
    signed_in_member, project, make_items
):
    make_items(project, 2)
    lease = assignment_next(project=project, annotator=signed_in_member.user)
    page = signed_in_member.get(f"/annotation/p/{project.slug}/work/").content.decode()
    skip_url = f"/annotation/p/{project.slug}/work/{lease.pk}/skip/"
    assert 'id="noscript-skip"' in page and skip_url in page
    response = signed_in_member.post(skip_url, {"reason": "The chart does not load."}, follow=True)
    assert "Skipped. Here is your next item." in response.content.decode()
    lease.refresh_from_db()
    assert lease.state == Assignment.State.SKIPPED
