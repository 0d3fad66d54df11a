"""The page that asks before a deletion, shared by every app's researcher pages.

GET shows what goes and what follows from it; its button POSTs to the same address, so the
question is asked with or without JavaScript. A deletion that is refused answers 409 with the
reason on the same page.
"""

from __future__ import annotations

from collections.abc import Callable

from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

TEMPLATE = "core/confirm_delete.html"


def confirm_delete_page(request: HttpRequest, context: dict) -> HttpResponse:
    """Render the confirmation page; see the template for the context it reads.

    ``context["problem"]`` says why the deletion cannot happen: on a GET the page shows it
    instead of the button, after a POST it is the refusal (409 Conflict).
    """
    refused = request.method == "POST" and bool(context.get("problem"))
    return render(request, TEMPLATE, context, status=409 if refused else 200)


def refusal_of(delete: Callable[[], object]) -> str:
    """Run ``delete``: "" when it went through, else why the service refused it (the
    ValidationError's messages), which the page then shows as its ``problem``."""
    try:
        delete()
    except ValidationError as exc:
        return " ".join(exc.messages)
    return ""
