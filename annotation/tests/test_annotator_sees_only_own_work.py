"""Nothing an annotator's browser or API client receives depends on reference labels, other
annotators' labels or drafts, or items that are not theirs."""

import re

import pytest
from django.test import Client
from rest_framework.test import APIClient

from annotation.models import Assignment, LabelSet, ReferenceLabels
from annotation.services import assignment_draft_save, assignment_next, assignment_submit

pytestmark = pytest.mark.django_db

SECRET_SOURCE = "reference-file-XYZZY"
_CSRF = re.compile(rb'(name="csrfmiddlewaretoken" value=")[^"]+"')


@pytest.fixture
def world(project, make_items, members, password):
    items = make_items(project, 4, reference=[["value_error", "ooc_error"], ["magnitude_error"]])
    ReferenceLabels.objects.update(source=SECRET_SOURCE)
    # The last item's text must never reach anna: nobody gives it to her.
    items[-1].sentences = ["UNASSIGNED-SENTENCE-ONE.", "UNASSIGNED-SENTENCE-TWO."]
    items[-1].save(update_fields=["sentences"])
    anna, bob, carl = members(3)
    # bob labels the item anna will get, and keeps a draft on another.
    first = assignment_next(project=project, annotator=bob)
    assignment_submit(
        assignment_id=first.pk, annotator=bob, labels=[["trend_error"], ["grammatical_error"]]
    )
    second = assignment_next(project=project, annotator=bob)
    assignment_draft_save(
        assignment_id=second.pk, annotator=bob, labels=[["nonsense_error"], ["label_error"]]
    )
    lease = assignment_next(project=project, annotator=anna)
    assert lease.item_id == first.item_id  # the item bob labelled
    page_client = Client()
    page_client.login(username=anna.username, password=password)
    api = APIClient()
    api.force_authenticate(anna)
    return {
        "project": project,
        "anna": anna,
        "bob": bob,
        "lease": lease,
        "bob_lease": second,
        "pages": page_client,
        "api": api,
    }


def annotator_responses(world) -> dict[str, bytes]:
    slug = world["project"].slug
    pages, api = world["pages"], world["api"]
    lease = world["lease"].pk
    out = {}
    for url in (
        "/annotation/",
        f"/annotation/p/{slug}/work/",
        f"/annotation/p/{slug}/guidelines/",
    ):
        response = pages.get(url)
        assert response.status_code == 200, url
        out[url] = _CSRF.sub(rb'\1-"', response.content)
    for url in (
        "/api/v1/me/",
        "/api/v1/annotator/projects/",
        f"/api/v1/annotator/projects/{slug}/progress/",
        f"/api/v1/annotator/assignments/{lease}/",
    ):
        response = api.get(url)
        assert response.status_code == 200, url
        out[url] = response.content
    out["next"] = api.post(f"/api/v1/annotator/projects/{slug}/next/").content
    out["bob's assignment"] = api.get(
        f"/api/v1/annotator/assignments/{world['bob_lease'].pk}/"
    ).content
    out["researcher items"] = api.get(f"/api/v1/projects/{slug}/items/").content
    return out


def test_responses_do_not_change_when_hidden_labels_change(world):
    before = annotator_responses(world)
    ReferenceLabels.objects.update(labels=[[], ["trend_error", "label_error"]])
    LabelSet.objects.update(labels=[["value_error"], []])
    Assignment.objects.filter(pk=world["bob_lease"].pk).update(draft=[[], ["ooc_error"]])
    after = annotator_responses(world)
    assert after == before


def test_responses_never_contain_hidden_content(world):
    for url, body in annotator_responses(world).items():
        text = body.decode()
        assert SECRET_SOURCE not in text, url
        assert "UNASSIGNED-SENTENCE" not in text, url
        assert world["bob"].username not in text, url
        assert "reference_labels" not in text and '"reference"' not in text, url
        assert 'grammatical_error"]' not in text and 'nonsense_error"]' not in text, url


def test_other_annotators_assignments_and_researcher_endpoints_are_closed(world):
    api, slug = world["api"], world["project"].slug
    bob_lease = world["bob_lease"].pk
    assert api.get(f"/api/v1/annotator/assignments/{bob_lease}/").status_code == 404
    # Each with a body its endpoint takes (a key it does not take is a 400 before any lookup).
    labels = {"labels": [[], []]}
    for method, url, body in (
        ("put", f"/api/v1/annotator/assignments/{bob_lease}/draft/", labels),
        ("post", f"/api/v1/annotator/assignments/{bob_lease}/submit/", labels),
        ("post", f"/api/v1/annotator/assignments/{bob_lease}/skip/", {"reason": "x"}),
    ):
        assert getattr(api, method)(url, body, format="json").status_code == 404
    for url in (
        f"/api/v1/projects/{slug}/",
        f"/api/v1/projects/{slug}/items/",
        f"/api/v1/projects/{slug}/progress/",
        f"/api/v1/projects/{slug}/leases/",
        f"/api/v1/projects/{slug}/imports/",
    ):
        assert api.get(url).status_code == 403, url
    pages = world["pages"]
    for url in (
        f"/annotation/projects/{slug}/",
        f"/annotation/projects/{slug}/items/",
        f"/annotation/projects/{slug}/items/{world['lease'].item_id}/",
    ):
        assert pages.get(url).status_code == 403, url
    assert Assignment.objects.get(pk=bob_lease).state == Assignment.State.LEASED


def test_the_work_page_does_not_name_the_captioning_model_or_the_source(world):
    body = world["pages"].get(f"/annotation/p/{world['project'].slug}/work/").content.decode()
    item = world["lease"].item
    assert item.external_id not in body
    assert "gpt4v" not in body and "LVLM" not in body
