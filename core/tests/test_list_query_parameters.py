"""Lists refuse query parameters they do not read, naming them; the studies list filters by status."""

import pytest

from studies.tests.factories import make_study

pytestmark = pytest.mark.django_db


def test_an_unknown_query_parameter_is_a_400_that_names_it(researcher_api):
    for url in ("/api/v1/studies/", "/api/v1/projects/", "/api/v1/library/chart-sets/",
                "/api/v1/jobs/"):  # fmt: skip
        refused = researcher_api.get(url, {"foo": "bar"})
        assert refused.status_code == 400, url
        body = refused.json()
        assert body["errors"] == {"foo": ["Unknown query parameter."]}
        assert "Unknown query parameters: foo." in body["detail"] and "page_size" in body["detail"]
    # Pagination and DRF's format stay allowed.
    assert researcher_api.get("/api/v1/studies/", {"page": 1, "page_size": 5}).status_code == 200
    assert researcher_api.get("/api/v1/studies/", {"format": "json"}).status_code == 200


def test_studies_filter_by_status(researcher_api, researcher):
    make_study(researcher, pairs=2, status="draft")
    live = make_study(researcher, pairs=2, status="live")
    listed = researcher_api.get("/api/v1/studies/", {"status": "live"}).json()["results"]
    assert [s["slug"] for s in listed] == [live.slug]
    assert researcher_api.get("/api/v1/studies/").json()["count"] == 2
    wrong = researcher_api.get("/api/v1/studies/", {"status": "running"})
    assert wrong.status_code == 400 and "draft" in wrong.json()["errors"]["status"][0]
    # A list that reads its own parameters declares them.
    assert researcher_api.get("/api/v1/studies/", {"status": "draft", "page": 1}).status_code == 200


def test_a_repeated_query_parameter_is_a_400_not_its_last_value(researcher_api, researcher):
    make_study(researcher, pairs=2, status="draft")
    make_study(researcher, pairs=2, status="live")
    refused = researcher_api.get("/api/v1/studies/?status=draft&status=live")
    assert refused.status_code == 400
    body = refused.json()
    assert body["errors"] == {"status": ["Give it once, not 2 times."]}
    assert "status repeated" in body["detail"]
    paged = researcher_api.get("/api/v1/studies/?page=1&page=2")
    assert paged.status_code == 400 and "page" in paged.json()["errors"]
    assert researcher_api.get("/api/v1/studies/?status=live").json()["count"] == 1
