"""A participant's way through a study: start, answer, withdraw, finish."""

from studies.services.sessions.errors import (
    AlreadyAnswered,
    AlreadyStarted,
    AnswerInvalid,
    LinkProblem,
    NotCurrentTrial,
    NotFinished,
    SessionEnded,
    SessionError,
    StudyUnavailable,
)
from studies.services.sessions.flow import (
    Completion,
    completion_for,
    ended_message,
    session_begin,
    session_expire,
    session_finish,
    session_withdraw,
    sessions_expire_overdue,
    trial_mark_shown,
)
from studies.services.sessions.platform import (
    Identity,
    identity_from_params,
    link_params,
    wording,
)
from studies.services.sessions.record import (
    RecordResult,
    answer_error,
    check_given,
    read_answer,
    response_record,
    trial_spec,
)
from studies.services.sessions.release import session_release, session_release_problem
from studies.services.sessions.start import (
    StartResult,
    already_started_message,
    session_decline,
    session_find,
    session_start,
)

__all__ = [
    "AlreadyAnswered",
    "AlreadyStarted",
    "AnswerInvalid",
    "Completion",
    "Identity",
    "LinkProblem",
    "NotCurrentTrial",
    "NotFinished",
    "RecordResult",
    "SessionEnded",
    "SessionError",
    "StartResult",
    "StudyUnavailable",
    "already_started_message",
    "check_given",
    "completion_for",
    "ended_message",
    "identity_from_params",
    "link_params",
    "answer_error",
    "read_answer",
    "response_record",
    "session_begin",
    "session_decline",
    "session_expire",
    "session_find",
    "session_finish",
    "session_release",
    "session_release_problem",
    "session_start",
    "session_withdraw",
    "sessions_expire_overdue",
    "trial_mark_shown",
    "trial_spec",
    "wording",
]
