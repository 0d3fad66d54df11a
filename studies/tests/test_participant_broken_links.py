"""Participant addresses that lead nowhere: a tampered or mistyped token, a cut-short link, an
answer address opened again. The participant gets a calm page of their own, never the
researchers' pages, and nothing is stored."""

import pytest
from django.urls import reverse

from studies.models import ParticipantSession, Response
from studies.tests.factories import make_study
from studies.tests.test_participant_pages import start

pytestmark = pytest.mark.django_db


@pytest.fixture
def study(researcher):
    return make_study(researcher, pairs=2)


def test_a_tampered_token_is_a_not_found_page(client, study):
    session = start(client, study)
    tampered = session.token[:-1] + ("A" if session.token[-1] != "A" else "B")
    assert client.get(f"/s/p/{tampered}/").status_code == 404
    assert (
        client.post(f"/s/p/{tampered}/answer/", {"position": 0, "choice": "1"}).status_code == 404
    )
    assert client.get("/s/p/short/").status_code == 404
    assert not Response.objects.exists()


def test_a_broken_link_gets_a_calm_participant_page(client, study):
    response = client.get("/s/p/" + "x" * 43 + "/")
    assert response.status_code == 404 and b"This link does not work" in response.content
    assert b"Sign in" not in response.content
    assert client.get("/s/no-such-study/").status_code == 404


@pytest.mark.parametrize(
    "url",
    [
        "/s/p/" + "x" * 43 + "/",
        "/s/p/short/",  # cut short: no URL pattern takes it
        "/s/p/bad.token!/",
        "/s/p/" + "x" * 43 + "/withdraw/",
        "/s/p/" + "x" * 43 + "/more/",
        "/s/no-such-study/",
        "/s/no-such-study/consent/",
        "/s/no/such/page/",
    ],
)
def test_every_participant_address_with_a_bad_token_gets_the_participant_page(
    client, researcher, url
):
    client.force_login(researcher)  # even a signed-in researcher sees no researcher pages
    response = client.get(url)
    page = response.content.decode()
    assert response.status_code == 404
    assert "This link does not work" in page
    assert "contact the researcher who sent you the link" in page
    assert "We could not find that page" not in page
    assert "Sign in" not in page and "Sign out" not in page and "/studies/" not in page
    assert response["Referrer-Policy"] == "no-referrer"


def test_opening_an_answer_address_again_leads_back_to_the_session(client, study):
    session = ParticipantSession.objects.create(study=study, external_id="5f0c1d2e3a4b5c6d7e8f9a0b")
    for name in ("begin", "answer", "finish"):
        response = client.get(reverse(f"participate:{name}", args=[session.token]))
        assert response.status_code == 302
        assert response["Location"] == reverse("participate:session", args=[session.token])
    response = client.get(reverse("participate:answer", args=["x" * 43]), follow=True)
    assert response.status_code == 404 and b"This link does not work" in response.content
