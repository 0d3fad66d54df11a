"""A draft save that carries no labels keeps the saved ones; a category given twice is refused."""

import pytest

from annotation.models import Assignment
from annotation.tests import test_annotator_api as annotator_api

pytestmark = pytest.mark.django_db

LABELS = [["value_error"], []]
anna = annotator_api.anna  # a member of the project (a fixture)
lease = annotator_api.lease  # her first item, leased over the API (a fixture)


def test_a_save_of_active_time_alone_keeps_the_labels_another_tab_saved(lease, anna, client_for):
    client = client_for(anna)
    url = f"/api/v1/annotator/assignments/{lease['id']}/draft/"
    assert (
        client.put(url, {"labels": LABELS, "active_seconds": 1}, format="json").status_code == 200
    )
    saved_at = Assignment.objects.get(pk=lease["id"]).draft_saved_at
    time_only = client.put(url, {"active_seconds": 2}, format="json")
    assert time_only.status_code == 200, time_only.content
    assert time_only.json()["draft"] == LABELS
    assignment = Assignment.objects.get(pk=lease["id"])
    assert assignment.draft == LABELS and assignment.draft_saved_at == saved_at
    assert assignment.active_seconds > 1


def test_a_save_with_nothing_in_it_is_refused(lease, anna, client_for):
    refused = client_for(anna).put(
        f"/api/v1/annotator/assignments/{lease['id']}/draft/", {}, format="json"
    )
    assert refused.status_code == 400
    assert refused.json()["errors"]["labels"] == ["Give the labels, active_seconds, or both."]


def test_a_category_given_twice_is_refused_not_merged(lease, anna, client_for):
    client = client_for(anna)
    twice = [["value_error", "value_error"], []]
    for method, path in (("put", "draft"), ("post", "submit")):
        refused = getattr(client, method)(
            f"/api/v1/annotator/assignments/{lease['id']}/{path}/", {"labels": twice}, format="json"
        )
        assert refused.status_code == 400, (path, refused.content)
        message = refused.json()["errors"]["labels"][0]
        assert message == ("Sentence 1: value_error given more than once; give each category once.")
    assignment = Assignment.objects.get(pk=lease["id"])
    assert assignment.draft is None and assignment.state == Assignment.State.LEASED
