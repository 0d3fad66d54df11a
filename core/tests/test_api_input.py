"""Input the API does not take is refused with a 400 that names it, never ignored."""

import pytest

from core.api.errors import OUT_OF_RANGE

pytestmark = pytest.mark.django_db


def test_unknown_fields_are_refused_and_listed(researcher_api):
    response = researcher_api.post(
        "/api/v1/tokens/", {"name": "laptop", "expires": 30, "scope": "read"}, format="json"
    )
    assert response.status_code == 400
    body = response.json()
    assert set(body["errors"]) == {"expires", "scope"}
    assert "Unknown fields: expires, scope." in body["detail"]
    assert "This request takes: name." in body["detail"]
    assert researcher_api.get("/api/v1/tokens/").json()["count"] == 0


def test_the_known_fields_alone_still_go_through(researcher_api):
    response = researcher_api.post("/api/v1/tokens/", {"name": "laptop"}, format="json")
    assert response.status_code == 201


def test_a_page_that_is_not_a_number_is_a_400_that_says_so(researcher_api):
    for page in ("abc", "0", "-1", "1.5"):
        response = researcher_api.get("/api/v1/jobs/", {"page": page})
        assert response.status_code == 400, page
        assert "page" in response.json()["errors"]
        assert "1 or more" in response.json()["detail"]


def test_a_page_size_out_of_bounds_is_a_400(researcher_api):
    for size in ("abc", "0", "501"):
        response = researcher_api.get("/api/v1/jobs/", {"page_size": size})
        assert response.status_code == 400, size
        assert "from 1 to 500" in response.json()["errors"]["page_size"][0]


def test_a_page_past_the_end_is_a_404_naming_the_last_page(researcher_api):
    response = researcher_api.get("/api/v1/jobs/", {"page": "7"})
    assert response.status_code == 404
    assert response.json()["detail"] == "There is no page 7: the last page is 1."
    assert researcher_api.get("/api/v1/jobs/", {"page": "1"}).status_code == 200
    assert researcher_api.get("/api/v1/jobs/", {"page": "last"}).status_code == 200


def test_an_id_beyond_any_row_is_a_400_naming_the_parameter(researcher_api):
    for path in ("/api/v1/jobs/{}/", "/api/v1/tokens/{}/"):
        response = researcher_api.get(path.format("1" * 20))
        if path.startswith("/api/v1/tokens/"):
            response = researcher_api.delete(path.format("1" * 20))
        assert response.status_code == 400, path
        body = response.json()
        assert body["detail"] == OUT_OF_RANGE
        assert "out of range" in body["errors"]["pk"][0]
    assert researcher_api.get("/api/v1/jobs/9223372036854775807/").status_code == 404
