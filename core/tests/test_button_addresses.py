"""Opening a button's address (a POST-only view) goes to the button's page, saying nothing was done."""

import pytest

from studies.models import StudyResults
from studies.tests.factories import make_study

pytestmark = pytest.mark.django_db


def test_a_buttons_address_opened_after_signing_in_goes_to_its_page(client, researcher, password):
    study = make_study(researcher, pairs=2)
    action = f"/studies/study/{study.slug}/results/compute/"
    signed_out = client.get(action)
    assert signed_out.status_code == 302 and "/login/" in signed_out["Location"]
    client.login(username=researcher.username, password=password)
    opened = client.get(action, follow=True)
    assert opened.redirect_chain == [(f"/studies/study/{study.slug}/results/", 302)]
    assert opened.status_code == 200
    assert "That address belongs to a button, so opening it did nothing." in opened.content.decode()
    assert not StudyResults.objects.filter(study=study, computed_at__isnull=False).exists()


def test_the_page_above_is_the_nearest_address_the_site_knows():
    from core.button_addresses import _page_above

    assert _page_above("/studies/study/s/participants/3/release/") == (
        "/studies/study/s/participants/3/"
    )
    assert _page_above("/no/such/place/") == "/"
    assert _page_above("/") == "/"


def test_the_api_still_answers_405_in_json(researcher_api):
    study = make_study(researcher_api.handler._force_user, pairs=2)
    refused = researcher_api.get(f"/api/v1/studies/{study.slug}/status/")
    assert refused.status_code == 405 and refused.json()["detail"] == 'Method "GET" not allowed.'


def test_a_streamed_405_is_passed_on_as_it_is(rf):
    from django.http import StreamingHttpResponse

    from core.button_addresses import ButtonAddressMiddleware

    streamed = StreamingHttpResponse(iter([b"x"]), status=405)
    middleware = ButtonAddressMiddleware(lambda request: streamed)
    assert middleware(rf.get("/studies/")) is streamed
