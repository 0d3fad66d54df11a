"""The rounds API: PATCH and DELETE a round, POST .../move/, with the project's error format."""

import pytest
import yaml

from annotation.services.quality import attempt_start
from annotation.tests.quality_setup import round_titles, with_three_rounds
from core.models import AuditEntry

pytestmark = pytest.mark.django_db


@pytest.fixture
def three(project, make_items, researcher):
    return with_three_rounds(project, make_items, researcher)


def _url(project, position, tail=""):
    return f"/api/v1/projects/{project.slug}/rounds/{position}/{tail}"


def test_patch_changes_a_round_and_answers_with_it(project, three, researcher_api):
    gold_c = three["gold"][2]
    response = researcher_api.patch(
        _url(project, 2),
        {"title": "Trends", "rule": "accuracy", "pass_mark": 0.75, "items": [gold_c.item_id]},
        format="json",
    )
    assert response.status_code == 200
    assert response.json() == {"position": 2, "title": "Trends", "rule": "accuracy",
                               "pass_mark": 0.75, "items_per_attempt": None, "max_attempts": None,
                               "gold_items": [gold_c.item_id], "translations": {}}  # fmt: skip
    assert researcher_api.get(_url(project, 2)).json()["title"] == "Trends"
    entry = AuditEntry.objects.get(action="annotation.round_update")
    assert entry.details["after"]["rule"] == "accuracy"


def test_patch_refuses_bad_input_with_400(project, three, researcher_api, make_items):
    (plain,) = make_items(project, 1)
    cases = [
        ({"items": [plain.pk]}, "Every item of a round needs gold labels."),
        ({"items": []}, None),
        ({"pass_mark": 1.5}, None),
        ({"rule": "kappa"}, None),
        ({"title": "  "}, None),
        ({"position": 3}, "Unknown fields: position. A round's place changes with POST .../move/"),
        ({"colour": "red"}, "Unknown fields: colour. This request takes: title, items,"),
    ]
    for body, detail in cases:
        response = researcher_api.patch(_url(project, 1), body, format="json")
        assert response.status_code == 400, body
        payload = response.json()
        assert set(payload) == {"detail", "errors"}
        if detail:
            assert payload["detail"].startswith(detail)
    unknown = researcher_api.patch(_url(project, 1), {"colour": "red"}, format="json").json()
    assert unknown["errors"] == {"colour": ["Unknown field."]}
    assert round_titles(project) == ["Round one", "Round two", "Round three"]


def test_once_attempted_patch_renames_but_refuses_other_changes_with_409(
    project, three, members, researcher_api
):
    (anna,) = members(1)
    attempt_start(project=project, annotator=anna, position=1)
    refused = researcher_api.patch(_url(project, 1), {"pass_mark": 0.2}, format="json")
    assert refused.status_code == 409
    assert refused.json()["errors"] == {}
    assert "so its rule, pass mark and gold items are fixed" in refused.json()["detail"]
    same = researcher_api.patch(
        _url(project, 1), {"title": "Warm-up", "pass_mark": 0.6, "rule": "f1"}, format="json"
    )
    assert same.status_code == 200 and same.json()["title"] == "Warm-up"


def test_delete_closes_the_gap_and_lists_what_is_left(project, three, researcher_api):
    response = researcher_api.delete(_url(project, 1))
    assert response.status_code == 200
    body = response.json()
    assert (body["position"], body["title"], body["qualified"]) == (1, "Round one", [])
    assert [(r["position"], r["title"]) for r in body["rounds"]] == [
        (1, "Round two"),
        (2, "Round three"),
    ]
    assert researcher_api.delete(_url(project, 3)).status_code == 404
    assert AuditEntry.objects.filter(action="annotation.round_delete").count() == 1


def test_delete_of_an_attempted_round_is_409(project, three, members, researcher_api):
    (anna,) = members(1)
    attempt_start(project=project, annotator=anna, position=1)
    response = researcher_api.delete(_url(project, 1))
    assert response.status_code == 409
    assert response.json()["detail"].startswith("Round 1 cannot be deleted")
    assert round_titles(project) == ["Round one", "Round two", "Round three"]


def test_move_swaps_and_answers_with_the_new_order(project, three, researcher_api):
    response = researcher_api.post(_url(project, 3, "move/"), {"direction": "up"}, format="json")
    assert response.status_code == 200
    assert [(r["position"], r["title"]) for r in response.json()] == [
        (1, "Round one"),
        (2, "Round three"),
        (3, "Round two"),
    ]
    edge = researcher_api.post(_url(project, 1, "move/"), {"direction": "up"}, format="json")
    assert edge.status_code == 409
    assert edge.json() == {"detail": "Round 1 is already the first round.", "errors": {}}
    bad = researcher_api.post(_url(project, 1, "move/"), {"direction": "left"}, format="json")
    assert bad.status_code == 400 and "direction" in bad.json()["errors"]
    assert researcher_api.post(_url(project, 9, "move/"), {"direction": "up"}).status_code == 404


def test_move_next_to_an_attempted_round_is_409(project, three, members, researcher_api):
    (anna,) = members(1)
    attempt_start(project=project, annotator=anna, position=1)
    response = researcher_api.post(_url(project, 2, "move/"), {"direction": "up"}, format="json")
    assert response.status_code == 409
    assert "annotators have attempted round 1" in response.json()["detail"]
    assert round_titles(project) == ["Round one", "Round two", "Round three"]


def test_only_the_projects_researchers_can_change_rounds(
    project, three, client_for, other_researcher, annotator
):
    for user, status in ((other_researcher, 404), (annotator, 403)):
        api = client_for(user)
        assert api.get(_url(project, 1)).status_code == status
        assert api.patch(_url(project, 1), {"title": "x"}, format="json").status_code == status
        assert api.delete(_url(project, 1)).status_code == status
        move = api.post(_url(project, 1, "move/"), {"direction": "down"}, format="json")
        assert move.status_code == status and set(move.json()) == {"detail", "errors"}
    assert round_titles(project) == ["Round one", "Round two", "Round three"]


def test_the_schema_describes_the_new_operations(client):
    spec = yaml.safe_load(client.get("/api/schema/").content)
    detail = spec["paths"]["/api/v1/projects/{slug}/rounds/{position}/"]
    assert {"get", "patch", "delete"} <= set(detail)
    assert "409" in detail["delete"]["responses"]
    move = spec["paths"]["/api/v1/projects/{slug}/rounds/{position}/move/"]["post"]
    assert move["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "/RoundMoveRequest"
    )
