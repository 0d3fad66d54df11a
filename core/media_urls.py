"""Public file URLs (chart images), each worked out once per process.

Each answer's reply names two charts: the next trial's, and the one after it for the page
to fetch ahead. ``FieldFile.url`` (the storage joins and quotes the name) and then
``build_absolute_uri`` (it splits, checks and quotes the URL again) took 3.5% of a web
worker's time in a classroom's burst (py-spy, 4 December). A chart's file name is a digest
of its bytes, and the public storage's URL for a name depends on the name and the settings
alone: files under MEDIA_URL, or an unsigned bucket URL (config/storage_settings.py). So
the URL of a name is kept, and forgotten when a setting changes. A storage that signs its
URLs (``querystring_auth``) makes a new one each time and is asked each time.
"""

from __future__ import annotations

from django.core.signals import setting_changed
from django.dispatch import receiver
from django.utils.encoding import iri_to_uri

# (id of the storage, file name) -> URL as build_absolute_uri would leave it, less the
# origin. Bounded: a process serves the charts of its live studies, a few thousand at most;
# past the bound it starts again rather than keep an order (a dict's reads take no lock).
_urls: dict[tuple[int, str], str] = {}
_LIMIT = 20_000


@receiver(setting_changed)
def _forget_urls(**kwargs):
    # MEDIA_URL, STORAGES and a bucket's options all decide URLs; tests change settings
    # often, and starting again costs nothing that matters.
    _urls.clear()


def public_url(file) -> str:
    """``file.url``, quoted as a URI; worked out once per name for an unsigned storage."""
    storage = file.storage
    if getattr(storage, "querystring_auth", False):
        return iri_to_uri(file.url)
    key = (id(storage), file.name)
    url = _urls.get(key)
    if url is None:
        if len(_urls) >= _LIMIT:
            _urls.clear()
        url = _urls[key] = iri_to_uri(file.url)
    return url


def absolute_public_url(request, file) -> str:
    """What ``request.build_absolute_uri(file.url)`` returns, for a public file.

    A URL from the storage is either absolute (a bucket's) or a path from the site's root
    (MEDIA_URL); the path is put after the request's scheme and host, as Django does for a
    path without ``.`` or ``..`` segments. ``_current_scheme_host`` is the value Django
    itself uses there, worked out once per request (the host checked against
    ALLOWED_HOSTS)."""
    url = public_url(file)
    if url.startswith("/") and not url.startswith("//") and "/./" not in url and "/../" not in url:
        return request._current_scheme_host + url
    return request.build_absolute_uri(url)
