"""Reading the participant's platform id from a study link.

Prolific sends ``PROLIFIC_PID``, ``STUDY_ID`` and ``SESSION_ID``; SONA an ``id``;
MTurk ``workerId``, ``assignmentId`` and ``hitId``; a plain link a ``pid``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from django.utils.translation import gettext as _
from django.utils.translation import pgettext_lazy

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

    # Lazy texts, each translated as a phrase that fits the sentences that use it.
    id_name: str  # "your Prolific ID"
    way_back: str  # "open the study again from Prolific"
    contact: str  # "message the researcher on Prolific"
    # What is left to do on the platform after withdrawing, as a whole sentence.
    after_withdrawal: str  # "Please also return your submission on Prolific, ..."


WORDING = {
    "prolific": Wording(
        pgettext_lazy("id_name", "your Prolific ID"),
        pgettext_lazy("way_back", "open the study again from Prolific"),
        pgettext_lazy("contact", "message the researcher on Prolific"),
        pgettext_lazy(
            "after_withdrawal",
            "Please also return your submission on Prolific, so that it does not time out there.",
        ),
    ),
    "sona": Wording(
        pgettext_lazy("id_name", "your SONA ID"),
        pgettext_lazy("way_back", "open the study again from its page on SONA"),
        pgettext_lazy("contact", "contact the researcher through SONA"),
        pgettext_lazy(
            "after_withdrawal",
            "You can close this window now. If you have questions about credit, contact the "
            "researcher through SONA.",
        ),
    ),
    "mturk": Wording(
        pgettext_lazy("id_name", "your MTurk worker ID"),
        pgettext_lazy("way_back", "open the HIT again from MTurk"),
        pgettext_lazy("contact", "contact the requester on MTurk"),
        pgettext_lazy("after_withdrawal", "Please also return the HIT on MTurk."),
    ),
    "pid": Wording(
        pgettext_lazy("id_name", "your participant ID"),
        pgettext_lazy("way_back", "open the study link again exactly as you received it"),
        pgettext_lazy("contact", "contact the researcher who sent you the link"),
        pgettext_lazy("after_withdrawal", "You can close this window now."),
    ),
    "none": Wording(
        pgettext_lazy("id_name", "your participant ID"),
        pgettext_lazy("way_back", "open the study link again exactly as you received it"),
        pgettext_lazy("contact", "contact the researcher who sent you the link"),
        pgettext_lazy("after_withdrawal", "You can close this window now."),
    ),
}


def wording(platform: str) -> Wording:
    return WORDING.get(platform, WORDING["none"])


def _words(words: Wording) -> dict[str, str]:
    """The wording as placeholders of a sentence, in the active language."""
    id_name = str(words.id_name)
    return {
        "id_name": id_name,
        "Id_name": id_name[:1].upper() + id_name[1:],
        "way_back": str(words.way_back),
        "contact": str(words.contact),
    }


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
            _("You are previewing this HIT. Please accept it on MTurk to start the study."),
            param="assignmentId",
            preview=True,
        )
    raw = (query.get(id_param) or "").strip()
    if not raw:
        raise LinkProblem(
            _(
                "This link is missing %(id_name)s (the %(param)s part of the address). "
                "Please %(way_back)s, or %(contact)s."
            )
            % {**_words(words), "param": id_param},
            param=id_param,
        )
    if _PLACEHOLDER.fullmatch(raw):
        raise LinkProblem(
            _(
                "This link still holds a placeholder instead of %(id_name)s (the %(param)s part "
                "of the address). Please %(way_back)s rather than copying the link."
            )
            % {**_words(words), "param": id_param},
            param=id_param,
        )
    if not _ID.fullmatch(raw):
        raise LinkProblem(
            _(
                "%(Id_name)s in this link (the %(param)s part of the address) does not look "
                "right. Please %(way_back)s, or %(contact)s."
            )
            % {**_words(words), "param": id_param},
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
