"""An id too large for any row (20 digits in a URL) is a clear 400, never a 500.

SQLite refuses to bind it (OverflowError) and PostgreSQL to compare it with a bigint
(DataError); before, both escaped as 500s from the annotator's API, pages and the
researcher's quality pages.
"""

import pytest

from core.api.errors import OUT_OF_RANGE

# Transactional: on PostgreSQL the refused statement aborts the transaction it runs in,
# which in a test would be the test's own; a request in production runs in autocommit.
pytestmark = pytest.mark.django_db(transaction=True)
HUGE = "99999999999999999999"


def test_the_annotator_api_refuses_an_id_out_of_range(project, members, client_for):
    api = client_for(members(1)[0])
    for method, tail in (("put", "draft"), ("post", "submit"), ("post", "skip")):
        response = getattr(api, method)(
            f"/api/v1/annotator/assignments/{HUGE}/{tail}/", {"labels": [[]]}, format="json"
        )
        assert response.status_code == 400, (tail, response.status_code)
        assert response.json()["detail"] == OUT_OF_RANGE


def test_pages_refuse_an_id_out_of_range(project, members, client, researcher):
    client.force_login(members(1)[0])
    for tail in ("submit", "skip"):
        response = client.post(f"/annotation/p/{project.slug}/work/{HUGE}/{tail}/", {})
        # The submit page sends the annotator back to the work page where it can tell.
        refused = response.status_code == 400 and OUT_OF_RANGE in response.content.decode()
        assert refused or response.status_code == 302, (tail, response.status_code)
    client.force_login(researcher)
    response = client.get(f"/annotation/projects/{project.slug}/quality/annotators/{HUGE}/")
    # Refused by SQLite's driver (400), or found nowhere by PostgreSQL (404).
    assert response.status_code in (400, 404)
