"""Each role against each API endpoint: who may do what."""

import pytest
from rest_framework.test import APIClient

from annotation.services import project_create, project_join
from studies.services import study_create

ANON, ANNOTATOR, OWNER, STRANGER = "anonymous", "annotator", "owner", "other researcher"


@pytest.fixture
def world(researcher, other_researcher, annotator):
    study = study_create(owner=researcher, title="Truncated axes")
    project = project_create(owner=researcher, title="Caption errors")
    project_join(project=project, annotator=annotator)
    clients = {ANON: APIClient()}
    for role, user in ((ANNOTATOR, annotator), (OWNER, researcher), (STRANGER, other_researcher)):
        clients[role] = APIClient()
        clients[role].force_authenticate(user)
    return {"study": study, "project": project, "clients": clients}


# (method, url template, body) -> expected status per role
MATRIX = [
    ("get", "/api/v1/me/", None, {ANON: 401, ANNOTATOR: 200, OWNER: 200, STRANGER: 200}),
    ("get", "/api/v1/tokens/", None, {ANON: 401, ANNOTATOR: 403, OWNER: 200, STRANGER: 200}),
    (
        "post",
        "/api/v1/tokens/",
        {"name": "nb"},
        {ANON: 401, ANNOTATOR: 403, OWNER: 201, STRANGER: 201},
    ),
    ("get", "/api/v1/jobs/", None, {ANON: 401, ANNOTATOR: 200, OWNER: 200, STRANGER: 200}),
    ("get", "/api/v1/studies/", None, {ANON: 401, ANNOTATOR: 403, OWNER: 200, STRANGER: 200}),
    (
        "post",
        "/api/v1/studies/",
        {"title": "New"},
        {ANON: 401, ANNOTATOR: 403, OWNER: 201, STRANGER: 201},
    ),
    (
        "get",
        "/api/v1/studies/{study}/",
        None,
        {ANON: 401, ANNOTATOR: 403, OWNER: 200, STRANGER: 404},
    ),
    ("get", "/api/v1/projects/", None, {ANON: 401, ANNOTATOR: 403, OWNER: 200, STRANGER: 200}),
    (
        "post",
        "/api/v1/projects/",
        {"title": "New"},
        {ANON: 401, ANNOTATOR: 403, OWNER: 201, STRANGER: 201},
    ),
    (
        "get",
        "/api/v1/projects/{project}/",
        None,
        {ANON: 401, ANNOTATOR: 403, OWNER: 200, STRANGER: 404},
    ),
    (
        "get",
        "/api/v1/annotator/projects/",
        None,
        {ANON: 401, ANNOTATOR: 200, OWNER: 403, STRANGER: 403},
    ),
]

CASES = [
    pytest.param(method, url, body, role, status, id=f"{method} {url} as {role}")
    for method, url, body, expected in MATRIX
    for role, status in expected.items()
]


@pytest.mark.django_db
@pytest.mark.parametrize(("method", "url", "body", "role", "status"), CASES)
def test_role_permission_matrix(world, method, url, body, role, status):
    client = world["clients"][role]
    url = url.format(study=world["study"].slug, project=world["project"].slug)
    response = (
        getattr(client, method)(url, body, format="json") if body else getattr(client, method)(url)
    )
    assert response.status_code == status, response.content
    if status >= 400:
        assert set(response.json()) == {"detail", "errors"}


@pytest.mark.django_db
def test_lists_only_show_what_is_yours_or_shared(world, other_researcher):
    owner_view = world["clients"][OWNER].get("/api/v1/studies/").json()
    stranger_view = world["clients"][STRANGER].get("/api/v1/studies/").json()
    assert [s["slug"] for s in owner_view["results"]] == [world["study"].slug]
    assert stranger_view["results"] == []

    world["study"].collaborators.add(other_researcher)
    shared_view = world["clients"][STRANGER].get("/api/v1/studies/").json()
    assert [s["slug"] for s in shared_view["results"]] == [world["study"].slug]


@pytest.mark.django_db
def test_annotators_never_see_invite_codes_or_projects_they_did_not_join(world, make_user):
    listing = world["clients"][ANNOTATOR].get("/api/v1/annotator/projects/").json()
    assert [p["slug"] for p in listing["results"]] == [world["project"].slug]
    assert "invite_code" not in listing["results"][0]

    outsider = APIClient()
    outsider.force_authenticate(make_user("annotator"))
    assert outsider.get("/api/v1/annotator/projects/").json()["results"] == []


@pytest.mark.django_db
def test_list_endpoints_are_paginated(researcher_api, researcher):
    for n in range(3):
        study_create(owner=researcher, title=f"Study {n}")
    body = researcher_api.get("/api/v1/studies/?page_size=2").json()
    assert body["count"] == 3 and len(body["results"]) == 2 and body["next"]
