import pytest
import yaml
from django.core.management import call_command
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


@pytest.mark.django_db
def test_the_schema_says_what_submits_and_moderation_actually_answer(client):
    spec = yaml.safe_load(client.get("/api/schema/").content)
    submit = spec["paths"]["/api/v1/annotator/assignments/{id}/submit/"]["post"]["responses"]
    # 200 and 201 each come with or without `next` (the request's choice): one shape,
    # in which `next` and `next_refused` are not required.
    for code in ("200", "201"):
        ref = submit[code]["content"]["application/json"]["schema"]["$ref"]
        component = spec["components"]["schemas"][ref.rsplit("/", 1)[1]]
        assert {"next", "next_refused"} <= set(component["properties"]), code
        assert set(component["required"]) == {"id", "labels", "active_seconds", "submitted_at"}
    for path in (
        "/api/v1/projects/{slug}/annotators/{username}/attempts/",
        "/api/v1/projects/{slug}/annotators/{username}/{action}/",
    ):
        assert "409" in spec["paths"][path]["post"]["responses"], path


def test_the_schema_generates_without_a_warning(tmp_path):
    # A warning is a schema that may be wrong: two serializers taking one component name
    # (the labels submit's result and the participant answer's) made one of them wrong.
    call_command("spectacular", "--fail-on-warn", "--file", str(tmp_path / "schema.yaml"))
