"""Submit with `next`: the label set and the next lease in one request, with every queue rule kept."""

import json

import pytest

from annotation.models import Assignment, Item, LabelSet, Qualification
from annotation.services import project_update
from annotation.services.quality import controls as controls_module
from annotation.tests.quality_setup import GOLD_CONTROL, control_item_ids, qualify, with_rounds
from annotation.tests.test_quality_costs import Draws, _cost

pytestmark = pytest.mark.django_db

LABELS = [["value_error"], []]


def _next(api, project):
    return api.post(f"/api/v1/annotator/projects/{project.slug}/next/")


def _submit(api, lease_id, labels=LABELS, **extra):
    return api.post(
        f"/api/v1/annotator/assignments/{lease_id}/submit/",
        {"labels": labels, "next": True, **extra},
        format="json",
    )


def test_submit_returns_the_next_lease_which_the_next_endpoint_also_gives(
    project, make_items, members, client_for
):
    make_items(project, 3)
    (anna,) = members(1)
    api = client_for(anna)
    first = _next(api, project).json()
    response = _submit(api, first["id"])
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["labels"] == LABELS and body["next_refused"] is None
    following = body["next"]
    assert following["id"] != first["id"] and following["state"] == "leased"
    assert set(following) == set(first)  # the same shape as the next endpoint's
    assert _next(api, project).json() == following  # the open lease, not another one
    assert "app;dur=" in response["Server-Timing"]
    stored = LabelSet.objects.get(assignment_id=first["id"])
    assert stored.labels == LABELS
    assert Assignment.objects.get(pk=first["id"]).state == "submitted"


def test_without_next_the_submit_answers_as_before(project, make_items, members, client_for):
    make_items(project, 2)
    (anna,) = members(1)
    api = client_for(anna)
    lease = _next(api, project).json()
    response = _submit(api, lease["id"], next=False)
    assert response.status_code == 201
    assert set(response.json()) == {"id", "labels", "active_seconds", "submitted_at"}
    assert not Assignment.objects.filter(annotator=anna, state="leased").exists()


def test_a_repeated_submit_stores_nothing_twice_and_gives_the_same_next_item(
    project, make_items, members, client_for
):
    make_items(project, 3)
    (anna,) = members(1)
    api = client_for(anna)
    lease = _next(api, project).json()
    first = _submit(api, lease["id"])
    again = _submit(api, lease["id"])
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json()["id"] == first.json()["id"]
    assert again.json()["next"]["id"] == first.json()["next"]["id"]
    assert LabelSet.objects.filter(annotator=anna).count() == 1
    assert Assignment.objects.filter(annotator=anna).count() == 2
    # Other labels for a submitted item are refused: the first ones are kept.
    changed = _submit(api, lease["id"], labels=[[], ["trend_error"]])
    assert changed.status_code == 409
    assert "first labels are kept" in changed.json()["detail"]


def test_the_last_item_answers_with_no_next_item(project, make_items, members, client_for):
    make_items(project, 1)
    (anna,) = members(1)
    api = client_for(anna)
    lease = _next(api, project).json()
    body = _submit(api, lease["id"]).json()
    assert body["next"] is None and body["next_refused"] is None


def test_a_late_submit_is_kept_while_nobody_else_took_the_item(
    project, make_items, members, client_for
):
    make_items(project, 2)
    (anna,) = members(1)
    api = client_for(anna)
    lease = _next(api, project).json()
    Assignment.objects.filter(pk=lease["id"]).update(expires_at="2000-01-01T00:00:00Z")
    response = _submit(api, lease["id"])
    assert response.status_code == 201
    assert Assignment.objects.get(pk=lease["id"]).state == "submitted"
    assert LabelSet.objects.filter(assignment_id=lease["id"]).exists()


def test_a_late_submit_is_refused_once_another_annotator_took_the_item(
    project, make_items, members, client_for
):
    project_update(project=project, annotators_per_item=1)
    make_items(project, 1)
    anna, ben = members(2)
    api = client_for(anna)
    lease = _next(api, project).json()
    Assignment.objects.filter(pk=lease["id"]).update(expires_at="2000-01-01T00:00:00Z")
    assert _next(client_for(ben), project).status_code == 200
    assert (
        Assignment.objects.get(annotator=ben).item_id
        == Assignment.objects.get(pk=lease["id"]).item_id
    )
    response = _submit(api, lease["id"])
    assert response.status_code == 409
    assert "another annotator has taken it over" in response.json()["detail"]
    assert Assignment.objects.get(pk=lease["id"]).state == "expired"
    assert not LabelSet.objects.exists()


def test_someone_elses_assignment_is_404_and_bad_labels_400(
    project, make_items, members, client_for
):
    make_items(project, 2)
    anna, ben = members(2)
    lease = _next(client_for(anna), project).json()
    assert _submit(client_for(ben), lease["id"]).status_code == 404
    bad = _submit(client_for(anna), lease["id"], labels=[["no_such_error"], []])
    assert bad.status_code == 400 and "unknown category" in json.dumps(bad.json())
    assert not LabelSet.objects.exists()
    assert Assignment.objects.get(pk=lease["id"]).state == "leased"


def test_every_item_gets_exactly_k_label_sets_from_different_annotators(
    project, make_items, members, client_for
):
    items = make_items(project, 7)
    people = members(5)
    apis = [client_for(person) for person in people]
    leases = [_next(api, project).json() for api in apis]
    # Round robin until nobody gets anything: a lease is submitted, the next one comes back.
    while any(leases):
        for n, api in enumerate(apis):
            if leases[n]:
                leases[n] = _submit(api, leases[n]["id"]).json()["next"]
    for item in items:
        people_on_it = list(LabelSet.objects.filter(item=item).values_list("annotator", flat=True))
        assert len(people_on_it) == 3 and len(set(people_on_it)) == 3
    assert set(Item.objects.values_list("filled_count", "submitted_count")) == {(3, 3)}


def test_adaptive_overlap_grows_a_disputed_item_through_submit_and_next(
    project, make_items, members, client_for
):
    project_update(project=project, overlap_policy="adaptive", overlap_k_min=2,
                   overlap_k_max=3, overlap_rule="disagreement")  # fmt: skip
    (item,) = make_items(project, 1)
    a, b, c = members(3)
    for person, labels in ((a, LABELS), (b, [[], ["trend_error"]])):
        api = client_for(person)
        assert _submit(api, _next(api, project).json()["id"], labels).json()["next"] is None
    item.refresh_from_db()
    assert item.disputed and item.submitted_count == 2
    third = _next(client_for(c), project).json()
    assert Assignment.objects.get(pk=third["id"]).item_id == item.pk
    assert _submit(client_for(c), third["id"]).json()["next"] is None
    assert LabelSet.objects.filter(item=item).count() == 3


def test_a_control_comes_back_exactly_like_an_ordinary_item_and_without_gold(
    project, make_items, members, researcher, client_for, monkeypatch
):
    with_rounds(project, make_items, researcher, controls=3, control_rate=0.5, min_controls=100)
    make_items(project, 4)
    (anna,) = members(1)
    qualify(project, anna)
    api = client_for(anna)
    # First lease ordinary, then control, ordinary, control (a draw of 0.0 makes one due).
    monkeypatch.setattr(controls_module, "_rng", Draws([0.99, 0.0, 0.99, 0.0]))
    controls = control_item_ids(project)
    lease = _next(api, project).json()
    kinds, shapes = [], set()
    for _ in range(3):
        body = _submit(api, lease["id"]).json()
        lease = body["next"]
        kinds.append(Assignment.objects.get(pk=lease["id"]).item_id in controls)
        shapes.add((tuple(sorted(body)), tuple(sorted(lease)), tuple(sorted(lease["item"]))))
        text = json.dumps(body)
        assert "gold" not in text and "control" not in text
        assert json.dumps(GOLD_CONTROL) not in text
    assert kinds == [True, False, True]
    assert len(shapes) == 1
    assert Qualification.objects.get(annotator=anna).controls_given == 2


def test_a_submit_that_pauses_the_annotator_keeps_the_labels_and_says_why(
    project, make_items, members, researcher, client_for, monkeypatch
):
    with_rounds(project, make_items, researcher, controls=2, control_rate=0.5,
                min_controls=1, pause_threshold=0.5)  # fmt: skip
    make_items(project, 3)
    (anna,) = members(1)
    qualify(project, anna)
    api = client_for(anna)
    monkeypatch.setattr(controls_module, "_rng", Draws([0.0]))  # the first lease is a control
    lease = _next(api, project).json()
    response = _submit(api, lease["id"], labels=[[], []])  # misses the control's label: F1 0
    assert response.status_code == 201
    body = response.json()
    assert body["next"] is None
    assert body["next_refused"]["code"] == "paused" and body["next_refused"]["status"] == 403
    assert LabelSet.objects.filter(annotator=anna).count() == 1
    assert not Assignment.objects.filter(annotator=anna, state="leased").exists()


def test_submit_with_next_runs_the_same_statements_for_controls_and_ordinary_items(
    project, make_items, members, researcher, client_for, monkeypatch
):
    with_rounds(project, make_items, researcher, controls=4, control_rate=0.5, min_controls=100)
    make_items(project, 6)
    (anna,) = members(1)
    qualify(project, anna)
    api = client_for(anna)
    # Leases: ordinary, control, control, ordinary, ordinary, control.
    monkeypatch.setattr(controls_module, "_rng", Draws([0.99, 0.0, 0.0, 0.99, 0.99, 0.0]))
    controls = control_item_ids(project)
    lease = _next(api, project).json()
    costs = {}
    for _ in range(5):
        kind = Assignment.objects.get(pk=lease["id"]).item_id in controls
        response, cost = _cost(api, "post", f"/api/v1/annotator/assignments/{lease['id']}/submit/",
                               data={"labels": [[], []], "next": True}, format="json")  # fmt: skip
        lease = response.json()["next"]
        following = Assignment.objects.get(pk=lease["id"]).item_id in controls
        costs.setdefault((kind, following), set()).add(cost)
    # Every pair of kinds (submitted, leased) occurred, and all cost the very same statements.
    assert set(costs) == {(False, True), (True, True), (True, False), (False, False)}
    assert len(set().union(*costs.values())) == 1, costs
