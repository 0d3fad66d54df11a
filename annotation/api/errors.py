from functools import wraps

from rest_framework.response import Response

from annotation.services import QueueError
from core.api.errors import error_body


def queue_errors(method):
    """Answer a queue refusal with its own status (404, 409 ...) and the usual error body."""

    @wraps(method)
    def wrapped(*args, **kwargs):
        try:
            return method(*args, **kwargs)
        except QueueError as exc:
            return Response(error_body(exc.message), status=exc.status)

    return wrapped
