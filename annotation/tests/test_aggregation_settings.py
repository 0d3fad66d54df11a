"""The project's aggregation method: its default, the settings page and the API."""

import pytest

from annotation.models import Project
from core.models import AuditEntry

pytestmark = pytest.mark.django_db


@pytest.fixture
def signed_in(client, researcher):
    client.force_login(researcher)
    return client


def test_a_new_project_aggregates_by_majority_vote(project):
    assert project.aggregation_method == "majority"


def test_the_method_is_set_over_the_api_and_logged(researcher_api, project):
    url = f"/api/v1/projects/{project.slug}/"
    assert researcher_api.get(url).json()["aggregation_method"] == "majority"
    response = researcher_api.patch(url, {"aggregation_method": "dawid_skene"}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["aggregation_method"] == "dawid_skene"
    assert Project.objects.get(pk=project.pk).aggregation_method == "dawid_skene"
    entry = AuditEntry.objects.filter(action="annotation.project_update").latest("pk")
    assert entry.details["fields"] == ["aggregation_method"]


def test_an_unknown_method_is_400(researcher_api, project):
    response = researcher_api.patch(
        f"/api/v1/projects/{project.slug}/", {"aggregation_method": "glad"}, format="json"
    )
    assert response.status_code == 400
    assert "aggregation_method" in response.json()["errors"]
    assert Project.objects.get(pk=project.pk).aggregation_method == "majority"


def test_the_settings_page_offers_and_saves_the_method(signed_in, project):
    url = f"/annotation/projects/{project.slug}/settings/"
    page = signed_in.get(url).content.decode()
    assert 'name="aggregation_method"' in page and "Dawid-Skene" in page and "MACE" in page
    form = {
        "action": "settings", "title": project.title, "guidelines": "g",
        "annotators_per_item": 3, "lease_minutes": 30, "pay_per_item": "0.50",
        "target_hourly_rate": "15.00", "split_map_text": "gpt4v = LVLM",
    }  # fmt: skip
    assert signed_in.post(url, form | {"aggregation_method": "mace"}).status_code == 302
    assert Project.objects.get(pk=project.pk).aggregation_method == "mace"
    # A post without the field keeps the method.
    assert signed_in.post(url, form).status_code == 302
    assert Project.objects.get(pk=project.pk).aggregation_method == "mace"
