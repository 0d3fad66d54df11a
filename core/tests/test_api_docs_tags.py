"""/api/docs/ groups operations by resource and links back to the app."""

import pytest
import yaml

from core.api.schema_tags import TAGS, resource_tag


@pytest.mark.parametrize(
    ("path", "tag"),
    [
        ("/api/v1/studies/", "studies"),
        ("/api/v1/studies/{slug}/pairs/", "studies"),
        ("/api/v1/studies/{slug}/sessions/{id}/release/", "sessions"),
        ("/api/v1/studies/{slug}/results/compute/", "results"),
        ("/api/v1/studies/{slug}/models/export/", "models"),
        ("/api/v1/library/chart-sets/", "library"),
        ("/api/v1/projects/{slug}/", "projects"),
        ("/api/v1/projects/{slug}/items/{id}/", "items"),
        ("/api/v1/projects/{slug}/rounds/{position}/", "quality"),
        ("/api/v1/projects/{slug}/report/figure/", "reports"),
        ("/api/v1/jobs/{id}/download/", "jobs"),
        ("/api/v1/tokens/", "tokens"),
        ("/api/v1/me/", "account"),
        ("/healthz", None),
    ],
)
def test_the_tag_is_read_from_the_path(path, tag):
    assert resource_tag(path) == tag


@pytest.mark.django_db
def test_every_operation_has_a_resource_tag_with_a_description(client):
    spec = yaml.safe_load(client.get("/api/schema/").content)
    described = {t["name"]: t["description"] for t in spec["tags"]}
    used = set()
    for item in spec["paths"].values():
        for method, operation in item.items():
            if method in {"get", "post", "put", "patch", "delete"}:
                assert operation["tags"] != ["v1"]
                used.update(operation["tags"])
    assert used == set(described)
    assert all(described.values())
    # The docs list the resources in the order of TAGS.
    assert [t["name"] for t in spec["tags"]] == [n for n, _ in TAGS if n in used]
    assert {"studies", "results", "library", "projects", "quality", "jobs"} <= used
    # A view's own tag is kept.
    assert spec["paths"]["/api/v1/participate/studies/{slug}/"]["get"]["tags"] == ["participate"]


@pytest.mark.django_db
def test_the_docs_page_links_back_to_the_app(client):
    html = client.get("/api/docs/").content.decode()
    assert 'href="/"' in html and "Back to Chartroom" in html
    assert "swagger-ui" in html and "<style>" in html.split("api-docs-bar")[0]  # Swagger's own
