"""What can go wrong on a participant's way through a study, with a message for them.

Each error carries a stable ``code`` (for custom front ends), the HTTP status the
JSON flow answers with, and a message written for the participant.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy

from core.errors import ServiceError


class SessionError(ServiceError):
    code = "error"
    status = 400

    def __init__(self, message: str, **extra):
        # Words now, in the language of the request that raised it (a lazy text would
        # otherwise be read in whatever language is active when it is shown).
        super().__init__(str(message), errors=extra.get("errors"))
        self.extra = extra

    def body(self) -> dict:
        # The participant flow's clients branch on the code and resume from the extras.
        body = {**super().body(), "code": self.code}
        body.update({k: v for k, v in self.extra.items() if k in ("current", "status", "reason")})
        return body


class LinkProblem(SessionError):
    """The study link lacks the platform id or carries a malformed one."""

    code = "link_problem"
    status = 400


class StudyUnavailable(SessionError):
    """The study takes no new participants: not open, paused, closed or full."""

    code = "study_unavailable"
    status = 409
    heading = gettext_lazy("Thank you for your interest")

    def __init__(self, message: str, *, reason: str):
        super().__init__(message, reason=reason)
        self.reason = reason


class TooManyArrivals(SessionError):
    """Too many consents or declines from one address into one study within the window."""

    code = "too_many_arrivals"
    status = 429
    heading = gettext_lazy("Please try again later")

    def __init__(self, message: str, *, retry_after: int):
        super().__init__(message)
        self.retry_after = retry_after


class StudyFull(StudyUnavailable):
    """The study has the participants it needs (its target, or its stopping rule was met)."""

    code = "study_full"
    heading = gettext_lazy("This study is full")


class AnswerInvalid(SessionError):
    """The answer cannot be read for its type; the trial stays open."""

    code = "answer_invalid"
    status = 400


class NotCurrentTrial(SessionError):
    """An answer for a trial that is not the current one (a later one, or an unknown one)."""

    code = "not_current"
    status = 409


class AlreadyAnswered(SessionError):
    """A different answer for a trial that already has one: there is no going back."""

    code = "already_answered"
    status = 409


class SessionEnded(SessionError):
    """The session is over (timed out, withdrawn, or its study closed)."""

    code = "session_ended"
    status = 410


class NotFinished(SessionError):
    code = "not_finished"
    status = 409


class AlreadyStarted(SessionError):
    """The platform id already has a session and the request does not prove it holds it.

    Platform ids are not secrets (they are in links, and recruiters see them all),
    so knowing one never hands out the session: only its token or the cookie of
    the browser that started it does.
    """

    code = "already_started"
    status = 409
    # The same for every session the id may have, whatever became of it (see
    # studies.services.sessions.start.already_started_message).
    heading = gettext_lazy("This study cannot be started again")
