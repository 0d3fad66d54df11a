"""This request's language: the one home for "which language does this request speak".

A view that knows its reader's language (a participant's session, an annotation
project) runs inside :func:`speaking`. The language it had reached when it raised is
kept on the request, so the refusal page that ServiceErrorMiddleware renders after
the view has returned speaks it too; any other request speaks the language active
for it (the site's default).
"""

from __future__ import annotations

from contextlib import contextmanager

from django.conf import settings
from django.utils import translation

REQUEST_ATTR = "chartroom_language"


@contextmanager
def speaking(request, language: str | None = None):
    """Run the rest of the request in ``language`` (or the active one), which the view
    may change further (translation.activate); restored when the block ends."""
    with translation.override(language or translation.get_language()):
        try:
            yield
        except BaseException:
            # Read before the override ends: the language the view was speaking.
            setattr(request, REQUEST_ATTR, translation.get_language())
            raise


def request_language(request) -> str:
    """The language to answer ``request`` in, also outside its view."""
    return getattr(request, REQUEST_ATTR, None) or translation.get_language()


def reader_language(request, languages=()) -> str:
    """The language of a page that belongs to no single study or project (the annotator's
    home, the sign-in page): the one language all of ``languages`` share (the reader's
    projects), else the browser's (Accept-Language among settings.LANGUAGES, else the
    site's default). Read here only, so researcher pages keep the site's language."""
    shared = set(languages) - {"", None}
    if len(shared) == 1:
        return shared.pop()
    return translation.get_language_from_request(request)


def link_language(request) -> str:
    """The language a participant's link asks for (``lang=de``) when it names one the site
    speaks, else the browser's: for participant pages that know no study or session yet,
    such as a mistyped link."""
    asked = request.GET.get("lang", "")
    if asked in dict(settings.LANGUAGES):
        return asked
    return reader_language(request)
