"""Reading the participant's platform id from a study link.

Prolific sends ``PROLIFIC_PID``, ``STUDY_ID`` and ``SESSION_ID``; SONA an ``id``;
MTurk ``workerId``, ``assignmentId`` and ``hitId``; a plain link a ``pid``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from studies.models import Platform
from studies.services.sessions.errors import LinkProblem

# Platform ids are short tokens. Anything else (spaces, markup, a 5 kB string) is
# refused rather than stored, since it ends up in exports and researcher pages.
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@\-]{0,99}")
# What a link looks like when the platform did not fill in its placeholder:
# {{%PROLIFIC_PID%}}, %SURVEY_CODE%, ${workerId}, [pid] ...
_PLACEHOLDER = re.compile(r"(?=.*[{}%$\[\]])[{}%$\[\]\w\s]+")

MTURK_PREVIEW = "ASSIGNMENT_ID_NOT_AVAILABLE"


@dataclass(frozen=True)
class Identity:
    platform: str
    external_id: str = ""
    params: dict[str, str] = field(default_factory=dict)


def _platform_name(platform: Platform) -> str:
    return {"prolific": "Prolific", "sona": "SONA", "mturk": "MTurk"}.get(platform.value, "study")


def identity_from_params(platform: str, query: Mapping[str, str]) -> Identity:
    """The participant's identity from the link's parameters, or :class:`LinkProblem`."""
    choice = Platform(platform)
    id_param = choice.id_param
    if id_param is None:
        return Identity(platform=choice.value)
    name = _platform_name(choice)
    # MTurk shows the task before a worker accepts it, with no worker id yet.
    if choice == Platform.MTURK and (query.get("assignmentId") or "") == MTURK_PREVIEW:
        raise LinkProblem(
            "You are previewing this HIT. Please accept it on MTurk to start the study.",
            param="assignmentId",
            preview=True,
        )
    raw = (query.get(id_param) or "").strip()
    if not raw:
        raise LinkProblem(
            f"This link is missing your {name} ID (the {id_param} part of the address). "
            f"Please open the study again from {name}, or contact the researcher.",
            param=id_param,
        )
    if _PLACEHOLDER.fullmatch(raw):
        raise LinkProblem(
            f"This link still holds a placeholder instead of your {name} ID. "
            f"Please open the study from the {name} page rather than copying the link.",
            param=id_param,
        )
    if not _ID.fullmatch(raw):
        raise LinkProblem(
            f"The {name} ID in this link does not look right. "
            f"Please open the study again from {name}, or contact the researcher.",
            param=id_param,
        )
    params = {id_param: raw}
    for extra in choice.extra_params:
        value = (query.get(extra) or "").strip()
        if value and _ID.fullmatch(value):
            params[extra] = value
    return Identity(platform=choice.value, external_id=raw, params=params)


def link_params(platform: str, query: Mapping[str, str]) -> dict[str, str]:
    """The platform's parameters present in a query, to carry them from page to page."""
    choice = Platform(platform)
    names = ([choice.id_param] if choice.id_param else []) + list(choice.extra_params)
    return {n: query[n][:100] for n in names if query.get(n)}


# What to append to the study link when giving it to each platform, with the
# platform's own placeholder syntax for the ids it fills in.
LINK_SUFFIX = {
    "prolific": "?PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}",
    "sona": "?id=%SURVEY_CODE%",
    "mturk": "?workerId=${workerId}&assignmentId=${assignmentId}&hitId=${hitId}",
    "pid": "?pid=PARTICIPANT_ID",
}
