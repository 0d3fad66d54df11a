"""Starter texts for a study's consent, instructions and debrief, for the researcher to edit.

They follow the study's own settings (completion) so they do not contradict it; what only
the researcher knows stays in [square brackets], and the readiness list warns while any
bracket is left. The time allowed and what withdrawing does are not in them: the consent and
instructions pages state those themselves from the settings (one home for each sentence), and
a starter text repeating them would show them twice.
"""

from __future__ import annotations

import re

from studies.models import Study

TEXT_FIELDS = ("consent_text", "instructions_text", "debrief_text")
PLACEHOLDER = re.compile(r"\[[^\]\n]{2,80}\]")


def _consent(study: Study) -> str:
    return (
        "You are invited to take part in a study by [researchers' names] at [institution] about "
        "how people read charts.\n\n"
        "You will see charts, one at a time, and answer one short question about each. "
        "There are no known risks. [Payment or credit.]\n\n"
        "Your answers are stored under a random code. Your platform id is kept only to "
        "[pay you / grant credit] and is never published. The anonymous answers may be "
        "published as a dataset for research.\n\n"
        "Taking part is voluntary.\n\n"
        "This study was approved by [ethics board, approval number]. Questions: [contact e-mail]."
    )


def _instructions(study: Study) -> str:
    return (
        "Most pages show a chart and one question about it. Answer as accurately as you can: "
        "read the titles, axes and labels carefully.\n\n"
        "Some questions ask for a number: type it in the box (for example 1.2 or 45). Some ask "
        "you to pick an option, and some to put items in order.\n\n"
        "You cannot go back to change an answer. A few pages check that you are reading "
        "carefully."
    )


def _debrief(study: Study) -> str:
    # Nothing about what to do next (close the window, enter the code, press the button):
    # the page says that below the text, from the settings as they are when it is shown,
    # while this text is written once and the completion settings may change after it.
    return (
        "Some of the charts you saw were drawn to mislead: [for example a truncated or "
        "inverted axis, a 3D effect, a logarithmic scale]. Each came in an honest and a "
        "manipulated version of the same data, and your answers tell us how often each "
        "manipulation misleads readers.\n\n"
        "Questions about the study: [contact e-mail]."
    )


def starter_texts(study: Study) -> dict[str, str]:
    """A starter text for each of the study's texts, in the study's own terms."""
    return {
        "consent_text": _consent(study),
        "instructions_text": _instructions(study),
        "debrief_text": _debrief(study),
    }


def texts_with_placeholders(study: Study) -> list[str]:
    """The names of the study's texts that still contain a [placeholder] of a starter text."""
    return [name for name in TEXT_FIELDS if PLACEHOLDER.search(getattr(study, name) or "")]
