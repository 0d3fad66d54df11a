"""Fixtures for the studies tests: a ready-to-run study and signed-in clients.

A module that needs another kind of study (no attention checks, simulated participants)
defines its own ``study`` fixture, which takes the place of this one.
"""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from studies.tests.factories import make_chart_set, make_study


@pytest.fixture
def chart_set(researcher):
    """Three complete pairs: a multiple-choice, a free-text and a ranking question."""
    return make_chart_set(researcher, pairs=3)


@pytest.fixture
def study(researcher):
    """A live study of three pairs and two attention checks, owned by ``researcher``."""
    return make_study(researcher, pairs=3)


@pytest.fixture
def signed_in(client, researcher):
    """The test client signed in as ``researcher``, for the researcher's pages."""
    client.force_login(researcher)
    return client


@pytest.fixture
def client_for():
    def make(user):
        client = APIClient()
        client.force_authenticate(user)
        return client

    return make
