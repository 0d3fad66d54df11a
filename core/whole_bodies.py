"""Django's in-memory responses handed to the WSGI server as one piece of bytes.

A WSGI application returns either a list, whose bytes the server sends as they are, or an
iterable that the server must walk chunk by chunk and then close. Django returns its
responses as iterables, even a plain ``HttpResponse`` whose whole body is already in
memory. Granian (the Procfile's server) walks such an iterable from the request's Python
thread, calling back into Python for each chunk and for ``close()`` and writing to the
socket in between, while it takes a list's bytes to its Rust side in one call. Profiled in
a classroom burst (py-spy ``--gil``), that walk was 9% of the time a web worker held the
interpreter lock, the other thread of the process waiting for it meanwhile.

So this layer returns a plain response's body as a one-item list, and closes the response
itself, which is what the server's ``close()`` would have done (Django's
``request_finished``: database connections recycled, caches closed). Streaming and file
responses, whose bodies are not in memory, go to the server as Django returns them.
"""

from __future__ import annotations

from django.http import HttpResponse


class WholeBodies:
    """WSGI middleware: ``application``'s in-memory responses returned as ``[body]``."""

    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        response = self.application(environ, start_response)
        if not isinstance(response, HttpResponse):  # streaming, files: as they are
            return response
        try:
            return [response.content]
        finally:
            response.close()
