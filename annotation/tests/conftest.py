"""Fixtures for the annotation tests: a project with items and members."""

from __future__ import annotations

from pathlib import Path

import pytest
from rest_framework.test import APIClient

from annotation.models import Item, ReferenceLabels
from annotation.services import project_join
from annotation.tests.factories import ItemFactory, ProjectFactory, ReferenceLabelsFactory

# CI always provides the shared data, so a missing file must fail, never skip.
CHOCOLATE = (
    Path(__file__).resolve().parents[2].parent / "shared" / "data" / "chocolate" / "chocolate.json"
)


@pytest.fixture
def project(researcher):
    return ProjectFactory(owner=researcher, title="Caption errors", annotators_per_item=3)


@pytest.fixture
def make_items():
    def make(
        project,
        n,
        *,
        sentences=("Sales rose to 20.4% in 2010.", "They fell later."),
        reference=None,
    ):
        # Built by the factory, written in one query: some tests make hundreds.
        offset = Item.objects.filter(project=project).count()
        Item.objects.bulk_create(
            ItemFactory.build(project=project, position=offset + i, sentences=list(sentences))
            for i in range(n)
        )
        items = list(
            Item.objects.filter(project=project, position__gte=offset).order_by("position")
        )
        if reference is not None:
            ReferenceLabels.objects.bulk_create(
                ReferenceLabelsFactory.build(item=item, labels=reference) for item in items
            )
        return items

    return make


@pytest.fixture
def signed_in_member(client, members, password):
    """A test client signed in as a new member of the project (``client.user``)."""
    (anna,) = members(1)
    client.login(username=anna.username, password=password)
    client.user = anna
    return client


@pytest.fixture
def members(make_user, project):
    def make(n, target=None):
        users = []
        for _ in range(n):
            user = make_user("annotator")
            project_join(project=target or project, annotator=user)
            users.append(user)
        return users

    return make


@pytest.fixture
def client_for():
    def make(user):
        client = APIClient()
        client.force_authenticate(user)
        return client

    return make
