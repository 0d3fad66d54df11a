"""A button's address opened as a page goes to the page the button is on, saying nothing was done.

Views that only act (``require_POST``: recompute, release an id, change a status) answer
a GET with Django's empty 405, which a browser shows as its own bare error page. People
get there by signing in again after their session ran out (the login sends them back to
the address they asked for, which was the button's), or from a bookmarked or pasted
address. The nearest address above it that is a page is where the button lives.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponseRedirect
from django.urls import Resolver404, resolve
from django.utils.translation import gettext as _

from core.middleware import is_api_request


def _page_above(path: str) -> str:
    """The nearest address above ``path`` that the site's URLs know (at worst the start page)."""
    while path.rstrip("/"):
        path = path.rstrip("/").rsplit("/", 1)[0] + "/"
        try:
            resolve(path)
        except Resolver404:
            continue
        return path
    return "/"


class ButtonAddressMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if (
            response.status_code == 405
            and request.method in ("GET", "HEAD")
            and not is_api_request(request)
            and not getattr(response, "streaming", False)
            and not response.content  # Django's bare 405, not a page of a view's own
        ):
            # Said to a signed-in person; a participant's pages keep no messages (and no
            # session of this kind), and their flow puts them where they were anyway.
            if request.user.is_authenticated:
                messages.info(
                    request,
                    _(
                        "That address belongs to a button, so opening it did nothing. "
                        "Press the button again here."
                    ),
                )
            return HttpResponseRedirect(_page_above(request.path))
        return response
