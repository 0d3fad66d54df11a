"""Chart images served in front of Django, as a front web server would.

Every trial fetches a chart, so each answer costs one image request besides the answer
itself; through Django's middleware stack that request costs as much CPU as a small
page. Stored names are content hashes (a file at a URL never changes), so this WSGI layer
answers ``GET``/``HEAD`` of a public media file straight from ``MEDIA_ROOT`` with
long-lived immutable caching, before Django sees the request. Anything it is not sure
of (another path, a file that is not there, a name outside the folder, bucket storage,
a plain-http request that must be redirected to https) goes to Django, whose media view
gives the same file or the site's 404 page.

Written here rather than taken from WhiteNoise because WhiteNoise indexes its folders at
start-up (or rescans them per request with ``autorefresh``, meant for development),
while charts are uploaded while the site runs. A deployment with nginx in front can
serve ``/media/`` itself (README, *Deployment*) and never reach this.
"""

from __future__ import annotations

import mimetypes
import os
from pathlib import Path

IMMUTABLE = "public, max-age=31536000, immutable"
BLOCK = 64 * 1024


class PublicMediaFiles:
    """WSGI middleware: ``application`` wrapped so public media files skip Django."""

    def __init__(self, application, *, media_url: str, media_root: Path, redirect_http: bool,
                 proxy_ssl_header: tuple[str, str] | None = None):  # fmt: skip
        self.application = application
        self.prefix = media_url if media_url.endswith("/") else media_url + "/"
        self.root = os.path.realpath(media_root)
        self.redirect_http = redirect_http
        self.proxy_ssl_header = proxy_ssl_header

    def __call__(self, environ, start_response):
        path = self._file_for(environ)
        if path is None:
            return self.application(environ, start_response)
        try:
            handle = open(path, "rb")  # noqa: SIM115 - closed by the server through file_wrapper
            size = os.fstat(handle.fileno()).st_size
        except OSError:
            return self.application(environ, start_response)
        headers = [
            ("Content-Type", mimetypes.guess_type(path)[0] or "application/octet-stream"),
            ("Content-Length", str(size)),
            ("Cache-Control", IMMUTABLE),
            ("X-Content-Type-Options", "nosniff"),
        ]
        start_response("200 OK", headers)
        if environ["REQUEST_METHOD"] == "HEAD":
            handle.close()
            return []
        wrapper = environ.get("wsgi.file_wrapper")
        if wrapper is not None:
            return wrapper(handle, BLOCK)
        return _read_blocks(handle)

    def _file_for(self, environ) -> str | None:
        """The file's real path, when this layer may answer the request itself."""
        if environ.get("REQUEST_METHOD") not in ("GET", "HEAD"):
            return None
        url_path = environ.get("PATH_INFO", "")
        if not url_path.startswith(self.prefix) or environ.get("QUERY_STRING"):
            return None
        if self.redirect_http and not self._is_secure(environ):
            return None  # Django answers with its https redirect
        name = url_path[len(self.prefix) :]
        if not name or "\\" in name or "\x00" in name:
            return None
        path = os.path.realpath(os.path.join(self.root, name))
        if not path.startswith(self.root + os.sep) or not os.path.isfile(path):
            return None
        return path

    def _is_secure(self, environ) -> bool:
        if environ.get("wsgi.url_scheme") == "https":
            return True
        if self.proxy_ssl_header:  # as Django reads it: ("HTTP_X_FORWARDED_PROTO", "https")
            header, value = self.proxy_ssl_header
            return environ.get(header, "").split(",")[0].strip() == value
        return False


def _read_blocks(handle):
    with handle:
        while block := handle.read(BLOCK):
            yield block


def public_media_files(application):
    """``application`` behind :class:`PublicMediaFiles` when media is on this machine's disk."""
    from django.conf import settings

    from config.storage_settings import storage_mode

    if storage_mode() != "local":
        return application
    return PublicMediaFiles(
        application,
        media_url=settings.MEDIA_URL,
        media_root=settings.MEDIA_ROOT,
        redirect_http=settings.SECURE_SSL_REDIRECT,
        proxy_ssl_header=settings.SECURE_PROXY_SSL_HEADER,
    )
