"""A JSON POST answered without DRF's request and response objects, for the hottest endpoint.

A classroom's participants all answer within the same second, and the server's CPU per
answer is then the time the last of them waits (bench/bench_participants.py --lockstep-s).
DRF's dispatch around an answer (its Request wrapper, content negotiation, the Response
and its rendering through ``finalize_response``) cost about 0.12 ms of the ~2.1 ms of CPU
an answer takes (bench/profile_participant_request.py). :class:`LeanJSONPostView` skips them
for the plain case, a POST of a JSON body that accepts JSON back, and leaves every other
request to DRF as before (a query string such as ``?format=api`` included). The body is
read by the API's own parser, the reply is DRF's JSONRenderer's bytes with the headers DRF
would add, and every error is handled and rendered by DRF's ``handle_exception`` and
``finalize_response``. The one difference: the view sees Django's request, whose ``user``
is the signed-in account if there is one (DRF's would be anonymous for a view without
authentication); the participant's answer never reads it.
"""

from __future__ import annotations

import io

from django.http import HttpResponse
from rest_framework.renderers import JSONRenderer
from rest_framework.views import APIView

from core.api.parsers import JSONParser

# Accept headers a JSON reply satisfies without content negotiation (fetch()'s default is
# */*); any other goes through DRF's negotiation, which may answer 406.
_PLAIN_ACCEPT = {"", "*/*", "application/json"}
_RENDERER = JSONRenderer()


class LeanJSONPostView(APIView):
    """An APIView whose ``post_json(request, data, **kwargs)`` returns (body, status); its
    ``post`` should return the same through DRF, for requests off the lean path. Bodies
    over ``max_body_bytes`` go through DRF's path too, where the view refuses them. A
    subclass's own ``dispatch`` (a language to speak) wraps both paths."""

    max_body_bytes = 16 * 1024

    def dispatch(self, request, *args, **kwargs):
        if not self._lean(request):
            return super().dispatch(request, *args, **kwargs)
        try:
            data = JSONParser().parse(io.BytesIO(request.body), "application/json", {})
            body, status = self.post_json(request, data, **kwargs)
        except Exception as exc:  # noqa: BLE001 - every error is DRF's to answer, as before
            return self._error(request, exc, args, kwargs)
        response = HttpResponse(
            _RENDERER.render(body), status=status, content_type="application/json"
        )
        for name, value in self.default_response_headers.items():
            response[name] = value
        return response

    def _lean(self, request) -> bool:
        if request.method != "POST" or request.content_type != "application/json":
            return False
        if request.META.get("QUERY_STRING"):
            return False
        if request.content_params.get("charset", "utf-8").lower() != "utf-8":
            return False
        if request.META.get("HTTP_ACCEPT", "").strip() not in _PLAIN_ACCEPT:
            return False
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return False
        return 0 < length <= self.max_body_bytes

    def _error(self, request, exc, args, kwargs):
        # What APIView.dispatch does with an exception, on a Request built only now.
        drf_request = self.initialize_request(request, *args, **kwargs)
        self.request = drf_request
        self.headers = self.default_response_headers
        self.format_kwarg = None
        # As APIView.initial would have: an error page (DEBUG's included) needs a renderer.
        negotiated = self.perform_content_negotiation(drf_request, force=True)
        drf_request.accepted_renderer, drf_request.accepted_media_type = negotiated
        response = self.handle_exception(exc)
        return self.finalize_response(drf_request, response, *args, **kwargs)
