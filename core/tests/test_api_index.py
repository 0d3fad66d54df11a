"""GET /api/v1/ is an index of links, for anyone, not a 404."""

import pytest
import yaml
from rest_framework.test import APIClient

from core.services.tokens import api_token_create

pytestmark = pytest.mark.django_db


def test_the_api_root_links_to_the_schema_docs_and_collections_for_anyone(researcher):
    anonymous = APIClient()
    response = anonymous.get("/api/v1/")
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    index = response.json()
    assert index["schema"] == "http://testserver/api/schema/"
    assert index["docs"] == "http://testserver/api/docs/"
    assert index["collections"]["studies"] == "http://testserver/api/v1/studies/"
    assert anonymous.get(index["docs"]).status_code == 200

    client = APIClient()
    client.credentials(
        HTTP_AUTHORIZATION=f"Token {api_token_create(user=researcher, name='x').key}"
    )
    assert client.get("/api/v1/").json() == index
    for name, url in index["collections"].items():
        if name != "annotator_projects":  # a researcher is no annotator
            assert client.get(url).status_code == 200, name
    bad = APIClient()
    bad.credentials(HTTP_AUTHORIZATION="Token not-a-key")
    assert bad.get("/api/v1/").status_code == 401


def test_the_api_root_is_in_the_schema(client):
    spec = yaml.safe_load(client.get("/api/schema/").content)
    operation = spec["paths"]["/api/v1/"]["get"]
    assert operation["tags"] == ["index"]
    assert {"200", "401"} <= set(operation["responses"])
