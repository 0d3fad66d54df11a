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


@dataclass(frozen=True)
class Wording:
    """How a platform's own participants read about their id and their way back to it."""

    id_name: str  # "your Prolific ID"
    way_back: str  # "open the study again from Prolific"
    contact: str  # "message the researcher on Prolific"


WORDING = {
    "prolific": Wording(
        "your Prolific ID",
        "open the study again from Prolific",
        "message the researcher on Prolific",
    ),
    "sona": Wording(
        "your SONA ID",
        "open the study again from its page on SONA",
        "contact the researcher through SONA",
    ),
    "mturk": Wording(
        "your MTurk worker ID", "open the HIT again from MTurk", "contact the requester on MTurk"
    ),
    "pid": Wording(
        "your participant ID",
        "open the study link again exactly as you received it",
        "contact the researcher who sent you the link",
    ),
    "none": Wording(
        "your participant ID",
        "open the study link again exactly as you received it",
        "contact the researcher who sent you the link",
    ),
}


def wording(platform: str) -> Wording:
    return WORDING.get(platform, WORDING["none"])


def identity_from_params(platform: str, query: Mapping[str, str]) -> Identity:
    """The participant's identity from the link's parameters, or :class:`LinkProblem`."""
    choice = Platform(platform)
    id_param = choice.id_param
    if id_param is None:
        return Identity(platform=choice.value)
    words = wording(choice.value)
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
            f"This link is missing {words.id_name} (the {id_param} part of the address). "
            f"Please {words.way_back}, or {words.contact}.",
            param=id_param,
        )
    if _PLACEHOLDER.fullmatch(raw):
        raise LinkProblem(
            f"This link still holds a placeholder instead of {words.id_name} "
            f"(the {id_param} part of the address). Please {words.way_back} rather than "
            "copying the link.",
            param=id_param,
        )
    if not _ID.fullmatch(raw):
        raise LinkProblem(
            f"{words.id_name[0].upper()}{words.id_name[1:]} in this link (the {id_param} part of the address) "
            f"does not look right. Please {words.way_back}, or {words.contact}.",
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
