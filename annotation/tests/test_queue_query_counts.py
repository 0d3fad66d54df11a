"""Statements per annotator request on the hot path: next, submit, and submit with the next lease.

The counts include the transaction's SAVEPOINT and RELEASE (BEGIN and COMMIT
outside tests), not the API token's lookup (the tests sign in without one).
Before submit returned the next lease, an item cost two requests: 12 statements
to lease it (14 under quality control) and 10 to submit it (11); submit with
next then cost 15 (18). The numbers are exact so that a change that adds a
statement is seen. A submit's URL names an assignment, so reading its project's
language (the refusals are worded in it) is one statement of its own; the next
request reuses the project row it reads for the language.

PostgreSQL runs a request's writes as one statement each time (a data-modifying
WITH: the label set, the assignment and the item's count with the annotator's
locked standing; the lease with the item's count and the control tally) and
reads the categories with the submit's lock (services/queue_sql.py); SQLite has
no data-modifying WITH, so there they are statements of their own. On both, the
query that locks the next item also reads its assignments (the free slots).
"""

import pytest
from django.db import connection

from annotation.tests.quality_setup import qualify, with_rounds

pytestmark = pytest.mark.django_db

# {database: {False: ordinary project, True: project with qualification rounds and controls}}
COUNTS = {
    "postgresql": {
        "next": {False: 8, True: 9},
        "resumed": {False: 5, True: 5},
        "submit": {False: 7, True: 8},
        "submit_and_next": {False: 8, True: 10},
    },
    "sqlite": {
        "next": {False: 9, True: 11},
        "resumed": {False: 5, True: 5},
        "submit": {False: 10, True: 11},
        "submit_and_next": {False: 13, True: 16},
    },
}


def _count(kind, quality):
    return COUNTS[connection.vendor][kind][quality]


@pytest.fixture(params=[False, True], ids=["plain", "quality"])
def setup(request, project, make_items, members, client_for, researcher):
    quality = request.param
    if quality:
        with_rounds(project, make_items, researcher, controls=3, control_rate=0.2,
                    min_controls=100)  # fmt: skip
    make_items(project, 6)
    (anna,) = members(1)
    if quality:
        qualify(project, anna)
    return quality, client_for(anna)


def _next_url(project):
    return f"/api/v1/annotator/projects/{project.slug}/next/"


def _submit_url(lease):
    return f"/api/v1/annotator/assignments/{lease['id']}/submit/"


def test_next_costs_a_fixed_number_of_statements(setup, project, django_assert_num_queries):
    quality, api = setup
    with django_assert_num_queries(_count("next", quality)):
        assert api.post(_next_url(project)).status_code == 200
    with django_assert_num_queries(_count("resumed", quality)):
        assert api.post(_next_url(project)).status_code == 200


def test_submit_costs_a_fixed_number_of_statements(setup, project, django_assert_num_queries):
    quality, api = setup
    lease = api.post(_next_url(project)).json()
    with django_assert_num_queries(_count("submit", quality)):
        response = api.post(_submit_url(lease), {"labels": [[], []]}, format="json")
    assert response.status_code == 201


def test_submit_with_the_next_lease_costs_less_than_the_two_requests(
    setup, project, django_assert_num_queries
):
    quality, api = setup
    lease = api.post(_next_url(project)).json()
    for _ in range(2):  # the same for every item
        with django_assert_num_queries(_count("submit_and_next", quality)):
            response = api.post(
                _submit_url(lease), {"labels": [[], []], "next": True}, format="json"
            )
        assert response.status_code == 201
        lease = response.json()["next"]
        assert lease is not None
    assert _count("submit_and_next", quality) < _count("next", quality) + _count("submit", quality)
