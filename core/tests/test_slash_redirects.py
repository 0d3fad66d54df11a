"""A URL without its trailing slash: GET is moved (301), any other method keeps its method
and body (308), never a 500, in DEBUG or not; the API says it in JSON."""

import pytest

from core.models import ApiToken

pytestmark = pytest.mark.django_db


@pytest.fixture(params=[True, False], ids=["debug", "production"])
def debug(request, settings):
    settings.DEBUG = request.param
    return request.param


def test_an_api_post_without_the_slash_is_sent_on_with_its_method(client, researcher, debug):
    client.force_login(researcher)
    response = client.post("/api/v1/tokens", {"name": "x"}, content_type="application/json")
    assert response.status_code == 308
    assert response["Location"] == "/api/v1/tokens/"
    assert response["Content-Type"] == "application/json"
    assert "/api/v1/tokens/" in response.json()["detail"]
    assert not ApiToken.objects.exists()  # nothing was done at the wrong URL
    followed = client.post(
        "/api/v1/tokens", {"name": "x"}, content_type="application/json", follow=True
    )
    assert followed.status_code == 201
    assert followed.redirect_chain == [("/api/v1/tokens/", 308)]
    assert ApiToken.objects.filter(user=researcher, name="x").count() == 1


@pytest.mark.parametrize("method", ["put", "patch", "delete"])
def test_other_writes_without_the_slash_are_308_too(client, researcher, debug, method):
    client.force_login(researcher)
    response = getattr(client, method)("/api/v1/tokens/1", content_type="application/json")
    assert response.status_code == 308
    assert response["Location"] == "/api/v1/tokens/1/"


def test_a_page_form_without_the_slash_keeps_its_post(client, debug):
    response = client.post("/login", {"username": "a", "password": "b"})
    assert response.status_code == 308
    assert response["Location"] == "/login/"


def test_an_api_get_without_the_slash_is_moved_in_json(client, researcher, debug):
    client.force_login(researcher)
    response = client.get("/api/v1/studies?page=2")
    assert response.status_code == 301
    assert response["Location"] == "/api/v1/studies/?page=2"
    assert "/api/v1/studies/?page=2" in response.json()["detail"]


def test_a_page_get_without_the_slash_is_moved_as_django_does(client, debug):
    response = client.get("/login")
    assert (response.status_code, response["Location"]) == (301, "/login/")


def test_an_unknown_url_is_still_a_404(client, debug):
    assert client.post("/api/v1/no-such-thing").status_code == 404
    assert client.post("/no-such-page").status_code == 404


def test_a_streamed_api_redirect_is_passed_on_untouched(rf):
    from django.http import StreamingHttpResponse

    from core.slash import SlashCommonMiddleware

    streamed = StreamingHttpResponse(iter([b"moved"]), status=301)
    streamed["Location"] = "/api/v1/studies/"
    middleware = SlashCommonMiddleware(lambda request: streamed)
    response = middleware(rf.get("/api/v1/studies/"))
    assert response is streamed and b"".join(response.streaming_content) == b"moved"
