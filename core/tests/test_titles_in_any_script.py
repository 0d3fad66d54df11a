"""Titles in any script are titles; a slug is still ASCII, from the model's name when needed."""

import pytest

from annotation.models import Project
from studies.models import Study

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("url", "model", "fallback"),
    [("/studies/new/", Study, "study"), ("/annotation/projects/new/", Project, "project")],
)
def test_a_title_without_latin_letters_is_accepted_with_a_slug_of_its_own(
    client, researcher, url, model, fallback
):
    client.force_login(researcher)
    client.post(url, {"title": "图表研究", "description": ""})
    client.post(url, {"title": "Диаграммы", "description": ""})
    made = model.objects.order_by("pk")
    assert [m.title for m in made] == ["图表研究", "Диаграммы"]
    assert [m.slug for m in made] == [fallback, f"{fallback}-2"]
    refused = client.post(url, {"title": "🎉 !!!", "description": ""}).content.decode()
    assert "Use some letters or digits in the title." in refused
    assert model.objects.count() == 2


def test_a_manipulation_named_without_latin_letters_is_told_so(researcher_api):
    url = "/api/v1/library/manipulation-types/"
    for label in ("!!!", "图表"):
        refused = researcher_api.post(url, {"label": label}, format="json")
        assert refused.status_code == 400
        assert "Latin letters or digits" in refused.json()["errors"]["label"][0]
    again = researcher_api.post(url, {"label": "None"}, format="json")
    assert again.status_code == 400 and "exists already" in again.json()["errors"]["label"][0]
