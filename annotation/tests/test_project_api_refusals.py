"""Project input the API does not take is a 400 that names the field and changes nothing."""

import pytest

from annotation.models import Project

pytestmark = pytest.mark.django_db


def _url(project, tail=""):
    return f"/api/v1/projects/{project.slug}/{tail}"


@pytest.mark.parametrize("code", ["XXXX", "XYZ", "usd", "US", "12$", ""])
def test_a_currency_that_is_no_iso_4217_code_is_refused(researcher_api, project, code):
    response = researcher_api.patch(_url(project), {"currency": code}, format="json")
    assert response.status_code == 400, code
    message = response.json()["errors"]["currency"][0]
    assert "ISO 4217" in message or "blank" in message
    assert Project.objects.get(pk=project.pk).currency == "USD"


def test_an_iso_4217_currency_is_set(researcher_api, project):
    response = researcher_api.patch(_url(project), {"currency": "EUR"}, format="json")
    assert response.status_code == 200 and response.json()["currency"] == "EUR"
    assert Project.objects.get(pk=project.pk).currency == "EUR"
    created = researcher_api.post(
        "/api/v1/projects/", {"title": "Pounds", "currency": "GBP"}, format="json"
    )
    assert created.status_code == 201 and created.json()["currency"] == "GBP"
    refused = researcher_api.post(
        "/api/v1/projects/", {"title": "Nope", "currency": "ABC"}, format="json"
    )
    assert refused.status_code == 400 and "currency" in refused.json()["errors"]
    assert not Project.objects.filter(title="Nope").exists()


def test_unknown_project_fields_are_refused_and_listed(researcher_api, project):
    response = researcher_api.patch(_url(project), {"titel": "x", "owner": "bob"}, format="json")
    assert response.status_code == 400
    assert set(response.json()["errors"]) == {"titel", "owner"}


def test_the_report_refuses_a_method_naming_the_methods(researcher_api, project):
    for path in ("report/", "report/figure/"):
        response = researcher_api.get(_url(project, path), {"method": "bogus"})
        assert response.status_code == 400, path
        message = response.json()["errors"]["method"][0]
        assert "majority, dawid_skene, mace" in message and "aggregation_method" in message


def test_an_export_with_an_unknown_method_names_the_methods(researcher_api, project):
    response = researcher_api.get(_url(project, "exports/chocolate/"), {"method": "bogus"})
    assert response.status_code == 400
    assert response.json()["errors"]["method"] == [
        "“bogus” is not a valid choice: choose one of majority, dawid_skene, mace."
    ]


def test_an_unknown_report_parameter_is_refused(researcher_api, project):
    response = researcher_api.get(_url(project, "report/"), {"label": "reference"})
    assert response.status_code == 400
    assert "Unknown fields: label." in response.json()["detail"]
    assert researcher_api.get(_url(project, "report/"), {"format": "json"}).status_code == 200


def test_the_items_list_refuses_an_unknown_status_or_parameter(researcher_api, project, make_items):
    make_items(project, 2)
    url = _url(project, "items/")
    assert researcher_api.get(url, {"status": "open", "page": "1"}).json()["count"] == 2
    wrong = researcher_api.get(url, {"status": "done"})
    assert wrong.status_code == 400
    assert wrong.json()["errors"]["status"] == [
        "“done” is not a valid choice: choose one of open, in_progress, complete."
    ]
    typo = researcher_api.get(url, {"stauts": "open"})
    assert typo.status_code == 400 and "stauts" in typo.json()["errors"]
