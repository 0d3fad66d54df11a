import pytest
import yaml
from openapi_spec_validator import validate


@pytest.mark.django_db
def test_the_schema_endpoint_serves_a_valid_openapi_3_document(client):
    response = client.get("/api/schema/")
    assert response.status_code == 200
    spec = yaml.safe_load(response.content)
    assert spec["openapi"].startswith("3.")
    validate(spec)
    assert "/api/v1/me/" in spec["paths"]
    assert "tokenAuth" in spec["components"]["securitySchemes"]


@pytest.mark.django_db
def test_the_interactive_docs_load_without_the_internet(client):
    response = client.get("/api/docs/")
    assert response.status_code == 200
    assert b"swagger-ui" in response.content
    assert b"cdn.jsdelivr" not in response.content
