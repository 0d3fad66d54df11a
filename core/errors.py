"""The one base class for refusals: a rule a service enforces, said to the person asking.

A service raises a ``ServiceError`` subclass when a request breaks a rule (a full queue,
a round not yet passed, a study that is closed). The error carries what every entry
point needs to answer it the same way: the HTTP ``status``, a stable machine ``code``
for clients, a ``message`` for people and optional field ``errors``. The API's exception
handler (core.api.errors) maps it once, and ServiceErrorMiddleware once for pages, so
views only catch one when they do something of their own with it.
"""

from __future__ import annotations


class ServiceError(Exception):
    status = 400
    code = "error"

    def __init__(
        self,
        message: str = "",
        *,
        status: int | None = None,
        code: str | None = None,
        errors: dict | None = None,
    ):
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status
        if code is not None:
            self.code = code
        self.errors = errors or {}

    def body(self) -> dict:
        """The JSON error body the API answers with."""
        return {"detail": self.message, "errors": self.errors}
