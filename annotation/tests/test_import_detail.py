"""An import's own page: its state and every problem it reported, to read again from the
history; only researchers who may see the project can open it."""

import json

import pytest
from django.test import Client
from django.urls import reverse

from annotation.models import ImportBatch
from annotation.services import ImportRejected, captions_import
from annotation.tests.factories import ProjectFactory

pytestmark = pytest.mark.django_db


def _record(_id, **overrides):
    base = {"_id": _id, "sentences": ["Sales rose.", "They fell."], "labels": [[], []],
            "model": "gpt4v", "dataset": "pew"}  # fmt: skip
    return base | overrides


@pytest.fixture
def rejected(project, researcher):
    records = [_record(f"c{n}", labels=[[]]) for n in range(1, 61)]
    with pytest.raises(ImportRejected):
        captions_import(
            project=project, data=json.dumps(records).encode(), filename="bad.json",
            user=researcher,
        )  # fmt: skip
    return ImportBatch.objects.get(project=project)


def _signed_in(user, password) -> Client:
    client = Client()
    client.login(username=user.username, password=password)
    return client


def _url(batch) -> str:
    return reverse("annotation:import-detail", args=[batch.project.slug, batch.pk])


def test_the_history_links_to_an_import_that_lists_every_problem(
    project, researcher, password, rejected
):
    client = _signed_in(researcher, password)
    history = client.get(reverse("annotation:project-import", args=[project.slug]))
    assert f'href="{_url(rejected)}"' in history.content.decode()
    body = client.get(_url(rejected)).content.decode()
    assert "Rejected" in body and "bad.json" in body and "60 problems" in body
    # All of them, not the first 50 the upload's answer shows.
    for n in (1, 60):
        assert f"<td>{n}</td><td>c{n}</td><td>labels</td>" in body
    assert body.count("label list was given") == 60


def test_an_accepted_import_shows_its_counts(project, researcher, password):
    captions_import(project=project, data=json.dumps([_record("ok")]).encode(),
                    filename="good.json", user=researcher)  # fmt: skip
    batch = ImportBatch.objects.get(project=project)
    body = _signed_in(researcher, password).get(_url(batch)).content.decode()
    assert "Imported" in body and "1 new item from 1 record" in body
    assert "problems-heading" not in body


def test_a_collaborator_may_read_it(project, researcher, other_researcher, password, rejected):
    project.collaborators.add(other_researcher)
    assert _signed_in(other_researcher, password).get(_url(rejected)).status_code == 200


def test_other_researchers_get_404(project, researcher, other_researcher, password, rejected):
    other = _signed_in(other_researcher, password)
    assert other.get(_url(rejected)).status_code == 404
    # An import is found only under its own project, even by a researcher of another one.
    elsewhere = ProjectFactory(owner=other_researcher)
    foreign = reverse("annotation:import-detail", args=[elsewhere.slug, rejected.pk])
    assert other.get(foreign).status_code == 404
    missing = reverse("annotation:import-detail", args=[project.slug, rejected.pk + 1])
    assert _signed_in(researcher, password).get(missing).status_code == 404


def test_annotators_and_strangers_cannot_open_it(project, annotator, password, rejected):
    # As on every researcher page, an annotator is told the page is for researchers.
    assert _signed_in(annotator, password).get(_url(rejected)).status_code == 403
    assert Client().get(_url(rejected)).status_code == 302  # to sign in
