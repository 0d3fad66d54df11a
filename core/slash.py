"""Django's CommonMiddleware, but a form or API call to a URL without its trailing slash
keeps its method and body.

Every URL of the site ends with a slash, and Django's APPEND_SLASH sends a request for
the URL without it on to the URL with it. For GET that is a 301, as Django does. For a
POST, PUT, PATCH or DELETE Django raises an error with DEBUG on (a 500 in the demo) and
answers 301 without it, which clients follow with a GET, so the body is dropped and the
call ends at a 405 or, worse, reads instead of writing. Here those get a 308 (Permanent
Redirect), which browsers, curl -L and HTTP libraries follow with the same method and
body; an API client that does not follow redirects reads where to send it in the JSON.
"""

from __future__ import annotations

from django.http import JsonResponse
from django.http.response import HttpResponseRedirectBase
from django.middleware.common import CommonMiddleware
from django.utils.http import escape_leading_slashes

from core.api.errors import error_body
from core.middleware import is_api_request

SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


class HttpResponseMethodKeepingRedirect(HttpResponseRedirectBase):
    status_code = 308


class SlashCommonMiddleware(CommonMiddleware):
    def get_full_path_with_slash(self, request):
        # Django's, without the DEBUG error for a POST: process_response answers it.
        return escape_leading_slashes(request.get_full_path(force_append_slash=True))

    def process_response(self, request, response):
        if (
            response.status_code == 404
            and request.method not in SAFE_METHODS
            and self.should_redirect_with_slash(request)
        ):
            response = self._keep_method(request, self.get_full_path_with_slash(request))
        response = super().process_response(request, response)  # adds Content-Length
        if (
            is_api_request(request)
            and response.status_code == 301
            and not response.streaming
            and response.content == b""
        ):
            # The GET redirect in the API's own format rather than an empty HTML body.
            location = response["Location"]
            json_response = JsonResponse(error_body(_moved(location)), status=301)
            json_response["Location"] = location
            return json_response
        return response

    @staticmethod
    def _keep_method(request, location: str):
        redirect = HttpResponseMethodKeepingRedirect(location)
        if is_api_request(request):
            redirect.content = JsonResponse(error_body(_moved(location))).content
            redirect["Content-Type"] = "application/json"
        return redirect


def _moved(location: str) -> str:
    return f"This URL ends with a slash: send the request to {location}"
