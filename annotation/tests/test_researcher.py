"""Researchers' side: settings and categories, per-item and per-annotator progress, lease moves."""

import pytest

from annotation.defaults import DEFAULT_GUIDELINES
from annotation.models import Assignment, Category, Item, Project
from annotation.services import assignment_next, assignment_submit
from core.models import AuditEntry, User

pytestmark = pytest.mark.django_db


def test_a_new_project_has_the_seed_defaults(researcher_api):
    response = researcher_api.post("/api/v1/projects/", {"title": "Captions"}, format="json")
    assert response.status_code == 201
    body = response.json()
    assert body["guidelines"] == DEFAULT_GUIDELINES
    assert body["annotators_per_item"] == 3 and body["lease_minutes"] == 30
    assert body["split_map"] == {
        "gpt4v": "LVLM", "bard": "LVLM", "deplot": "LLM",
        "chartt5": "FT", "matcha": "FT", "unichart": "FT",
    }  # fmt: skip
    categories = researcher_api.get(f"/api/v1/projects/{body['slug']}/categories/").json()
    assert [(c["name"], c["shortcut"], c["is_factual"]) for c in categories] == [
        ("Value", "v", True),
        ("Label", "l", True),
        ("Trend", "t", True),
        ("Magnitude", "m", True),
        ("Out-of-context", "o", True),
        ("Grammatical", "g", False),
        ("Nonsense", "n", True),
    ]
    assert all(c["definition"] and c["example"] for c in categories)


def test_settings_are_edited_over_the_api_and_logged(researcher_api, project, make_items):
    make_items(project, 2)
    response = researcher_api.patch(
        f"/api/v1/projects/{project.slug}/",
        {
            "annotators_per_item": 5,
            "lease_minutes": 10,
            "guidelines": "Read carefully.",
            "split_map": {"GPT4V": "Frontier"},
            "target_hourly_rate": "18.00",
        },
        format="json",
    )
    assert response.status_code == 200, response.content
    project.refresh_from_db()
    assert (project.annotators_per_item, project.lease_minutes) == (5, 10)
    assert project.split_map == {"gpt4v": "Frontier"}
    assert set(Item.objects.values_list("split", flat=True)) == {"Frontier"}
    assert AuditEntry.objects.filter(action="annotation.project_update").exists()


@pytest.mark.parametrize(
    ("field", "value"),
    [("annotators_per_item", 0), ("lease_minutes", 0), ("split_map", ["gpt4v"])],
)
def test_bad_settings_are_400(researcher_api, project, field, value):
    response = researcher_api.patch(
        f"/api/v1/projects/{project.slug}/", {field: value}, format="json"
    )
    assert response.status_code == 400
    assert field in response.json()["errors"]


def test_categories_are_added_edited_and_checked(researcher_api, project):
    url = f"/api/v1/projects/{project.slug}/categories/"
    new = {"key": "unit_error", "name": "Unit", "definition": "Wrong unit.", "shortcut": "u"}
    assert researcher_api.post(url, new, format="json").status_code == 201
    taken = researcher_api.post(url, new | {"key": "unit2", "shortcut": "v"}, format="json")
    assert taken.status_code == 400 and "already uses the key" in taken.json()["detail"]
    reserved = researcher_api.post(url, new | {"key": "unit3", "shortcut": "j"}, format="json")
    assert reserved.status_code == 400 and "moves between sentences" in reserved.json()["detail"]

    edited = researcher_api.patch(
        f"{url}grammatical_error/", {"is_factual": True, "shortcut": "x"}, format="json"
    )
    assert edited.status_code == 200
    assert Category.objects.get(project=project, key="grammatical_error").shortcut == "x"
    assert researcher_api.delete(f"{url}unit_error/").status_code == 204


def test_categories_in_use_cannot_be_deleted(researcher_api, project, make_items, members):
    make_items(project, 1)
    (anna,) = members(1)
    lease = assignment_next(project=project, annotator=anna)
    assignment_submit(assignment_id=lease.pk, annotator=anna, labels=[["value_error"], []])
    response = researcher_api.delete(f"/api/v1/projects/{project.slug}/categories/value_error/")
    assert response.status_code == 400
    assert Category.objects.filter(key="value_error").exists()


def test_progress_lists_every_annotator(researcher_api, project, make_items, members):
    make_items(project, 3)
    anna, bob = members(2)
    for person in (anna, anna):
        lease = assignment_next(project=project, annotator=person)
        assignment_submit(assignment_id=lease.pk, annotator=person, labels=[[], []])
    assignment_next(project=project, annotator=bob)
    body = researcher_api.get(f"/api/v1/projects/{project.slug}/progress/").json()
    assert body["items"] == 3 and body["label_sets"] == 2 and body["needed"] == 9
    rows = {r["username"]: r for r in body["annotators"]}
    assert (rows[anna.username]["done"], rows[bob.username]["in_hand"]) == (2, 1)


def test_items_show_reference_labels_and_label_sets_to_researchers(
    researcher_api, project, make_items, members
):
    (item,) = make_items(project, 1, reference=[["value_error"], []])
    (anna,) = members(1)
    lease = assignment_next(project=project, annotator=anna)
    assignment_submit(assignment_id=lease.pk, annotator=anna, labels=[[], ["trend_error"]])
    listing = researcher_api.get(f"/api/v1/projects/{project.slug}/items/").json()
    assert listing["results"][0]["reference_labels"] == [["value_error"], []]
    assert listing["results"][0]["annotators"] == [
        {"annotator": anna.username, "state": "submitted"}
    ]
    detail = researcher_api.get(f"/api/v1/projects/{project.slug}/items/{item.pk}/").json()
    assert detail["label_sets"][0]["labels"] == [[], ["trend_error"]]


def test_leases_are_listed_released_and_reassigned_over_the_api(
    researcher_api, project, make_items, members
):
    make_items(project, 2)
    anna, bob, carl = members(3)
    lease = assignment_next(project=project, annotator=anna)
    leases = researcher_api.get(f"/api/v1/projects/{project.slug}/leases/").json()["results"]
    assert [entry["annotator"] for entry in leases] == [anna.username]

    moved = researcher_api.post(
        f"/api/v1/projects/{project.slug}/leases/{lease.pk}/reassign/",
        {"annotator": bob.username, "reason": "anna is away"},
        format="json",
    )
    assert moved.status_code == 200 and moved.json()["annotator"] == bob.username
    unknown = researcher_api.post(
        f"/api/v1/projects/{project.slug}/leases/{moved.json()['id']}/reassign/",
        {"annotator": "ghost"},
        format="json",
    )
    assert unknown.status_code == 400
    # Someone on the site but outside the project gets the very same answer: the
    # endpoint does not tell a researcher which usernames exist.
    outsider = User.objects.create_user(username="outsider", password="x")
    elsewhere = researcher_api.post(
        f"/api/v1/projects/{project.slug}/leases/{moved.json()['id']}/reassign/",
        {"annotator": outsider.username},
        format="json",
    )
    assert (elsewhere.status_code, elsewhere.json()) == (400, unknown.json())
    assert unknown.json()["errors"]["annotator"] == [
        "No annotator of this project has this username."
    ]
    released = researcher_api.post(
        f"/api/v1/projects/{project.slug}/leases/{moved.json()['id']}/release/", {}, format="json"
    )
    assert released.status_code == 200 and released.json()["state"] == "released"
    assert not Assignment.objects.filter(state=Assignment.State.LEASED).exists()
    assert AuditEntry.objects.filter(action="annotation.lease_reassign").count() == 1


def test_other_researchers_get_404_everywhere(project, other_researcher, client_for, make_items):
    (item,) = make_items(project, 1)
    api = client_for(other_researcher)
    for url in (
        f"/api/v1/projects/{project.slug}/",
        f"/api/v1/projects/{project.slug}/categories/",
        f"/api/v1/projects/{project.slug}/items/",
        f"/api/v1/projects/{project.slug}/items/{item.pk}/",
        f"/api/v1/projects/{project.slug}/progress/",
        f"/api/v1/projects/{project.slug}/leases/",
    ):
        assert api.get(url).status_code == 404, url
    assert (
        api.patch(
            f"/api/v1/projects/{project.slug}/", {"lease_minutes": 5}, format="json"
        ).status_code
        == 404
    )


# --- pages --------------------------------------------------------------------------------------


@pytest.fixture
def signed_in(client, researcher, password):
    client.login(username=researcher.username, password=password)
    return client


def test_creating_a_project_leads_to_its_page(signed_in):
    response = signed_in.post(
        "/annotation/projects/new/", {"title": "Chart captions", "description": ""}, follow=True
    )
    assert response.redirect_chain[-1][0] == "/annotation/projects/chart-captions/"
    assert b"No items yet." in response.content


def test_the_project_page_shows_progress_annotators_and_leases(
    signed_in, project, make_items, members
):
    make_items(project, 2)
    anna, bob = members(2)
    lease = assignment_next(project=project, annotator=anna)
    body = signed_in.get(f"/annotation/projects/{project.slug}/").content.decode()
    assert anna.username in body and bob.username in body
    assert f"/annotation/projects/{project.slug}/leases/{lease.pk}/release/" in body
    assert f"/annotation/join/{project.invite_code}/" in body

    response = signed_in.post(
        f"/annotation/projects/{project.slug}/leases/{lease.pk}/reassign/",
        {"annotator": bob.username},
        follow=True,
    )
    assert f"is now leased to {bob.username}" in response.content.decode()
    moved = Assignment.objects.get(annotator=bob)
    response = signed_in.post(
        f"/annotation/projects/{project.slug}/leases/{moved.pk}/release/", follow=True
    )
    assert "it is back in the pool" in response.content.decode()


def test_the_settings_page_edits_guidelines_split_map_and_a_category(signed_in, project):
    url = f"/annotation/projects/{project.slug}/settings/"
    page = signed_in.get(url).content.decode()
    assert "gpt4v = LVLM" in page and "In this task, you will evaluate" in page
    response = signed_in.post(
        url,
        {
            "action": "settings",
            "title": project.title,
            "description": "",
            "guidelines": "New guidelines.",
            "annotators_per_item": 2,
            "lease_minutes": 20,
            "pay_per_item": "0.60",
            "target_hourly_rate": "20.00",
            "accepting_annotators": "on",
            "split_map_text": "gpt4v = LVLM\nllava = LVLM",
        },
    )
    assert response.status_code == 302
    project.refresh_from_db()
    assert project.guidelines == "New guidelines." and project.annotators_per_item == 2
    assert project.split_map == {"gpt4v": "LVLM", "llava": "LVLM"}

    bad = signed_in.post(
        url,
        {
            "action": "settings", "title": "T", "guidelines": "g", "annotators_per_item": 2,
            "lease_minutes": 20, "pay_per_item": "1", "target_hourly_rate": "1",
            "split_map_text": "gpt4v LVLM",
        },
    )  # fmt: skip
    assert bad.status_code == 400 and "write it as" in bad.content.decode()

    value = Category.objects.get(project=project, key="value_error")
    response = signed_in.post(
        url,
        {
            "action": f"category-{value.pk}",
            f"c{value.pk}-name": "Number",
            f"c{value.pk}-shortcut": "t",
            f"c{value.pk}-is_factual": "on",
            f"c{value.pk}-definition": "A number is wrong.",
            f"c{value.pk}-example": "",
        },
    )
    assert response.status_code == 400 and "already uses the key" in response.content.decode()
    response = signed_in.post(
        url,
        {
            "action": f"category-{value.pk}",
            f"c{value.pk}-name": "Number",
            f"c{value.pk}-shortcut": "u",
            f"c{value.pk}-is_factual": "on",
            f"c{value.pk}-definition": "A number is wrong.",
        },
    )
    assert response.status_code == 302
    value.refresh_from_db()
    assert (value.name, value.shortcut, value.key) == ("Number", "u", "value_error")


def test_the_items_page_filters_and_links_to_each_item(signed_in, project, make_items, members):
    items = make_items(project, 3, reference=[["value_error"], []])
    (anna,) = members(1)
    lease = assignment_next(project=project, annotator=anna)
    assignment_submit(assignment_id=lease.pk, annotator=anna, labels=[["ooc_error"], []])
    page = signed_in.get(f"/annotation/projects/{project.slug}/items/?status=in_progress")
    assert page.content.decode().count("/items/") >= 1
    assert items[0].external_id in page.content.decode()
    assert items[1].external_id not in page.content.decode()
    detail = signed_in.get(f"/annotation/projects/{project.slug}/items/{items[0].pk}/")
    body = detail.content.decode()
    assert "Out-of-context" in body and "Value" in body and anna.username in body


def test_researcher_pages_of_someone_elses_project_are_404(
    client, other_researcher, password, project
):
    client.login(username=other_researcher.username, password=password)
    for suffix in ("", "settings/", "import/", "items/"):
        assert client.get(f"/annotation/projects/{project.slug}/{suffix}").status_code == 404
    assert Project.objects.filter(slug=project.slug).exists()
