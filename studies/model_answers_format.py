"""Model answers to a study's FACT and MIND questions: what a file holds and how it is checked.

A model runner writes one row per model x chart, as CSV or JSON Lines (a JSON
array of the same objects is accepted too)::

    model, chart_id, fact_answer, mind_prediction, mind_justification

:mod:`studies.model_answers_reading` reads such a file into the rows and problems
defined here. Which problems block an import is the caller's decision;
``Problem.kind`` tells them apart. Chart ids are checked against the study by the
caller, who knows it (:func:`check_against_charts`), :func:`coverage` lists what
each model left unanswered, and :func:`check_fact_answer` scores a FACT answer.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from analysis.tables import natural_key
from studies.answer_types import check_answer
from studies.answers import DEFAULT_TOLERANCE, AnswerFormatError

DEFAULT_MAX_BYTES = 50 * 1024 * 1024

FIELDS = ("model", "chart_id", "fact_answer", "mind_prediction", "mind_justification")

# Problem kinds, so a caller can decide which ones block an import.
FILE = "file"  # the file as a whole cannot be read
MISSING = "missing"  # a row without model or chart id
DUPLICATE = "duplicate"  # a second row for the same model and chart
VALUE = "value"  # a cell that is not text or a number
# The longest model name stored (ModelAnswer.model's max_length; a test keeps them equal).
MAX_MODEL_NAME = 200
CELLS = "cells"  # a CSV row with text in more cells than its header has columns
MIND = "mind"  # a MIND answer without a readable prediction in [0, 1]
UNKNOWN_CHART = "unknown_chart"  # from check_against_charts


@dataclass(frozen=True)
class Problem:
    """Something wrong in the file; ``row`` is None when no row applies."""

    file: str
    row: int | None
    message: str
    kind: str

    def __str__(self) -> str:
        where = f"{self.file}, row {self.row}" if self.row is not None else self.file
        return f"{where}: {self.message}"


@dataclass(frozen=True)
class ModelAnswerRow:
    """One model's answers on one chart, as read.

    ``fact_answer`` is the text to check (None = not answered);
    ``mind_answer`` the MIND text as written, ``mind_prediction`` the number
    read from it (None when absent or unreadable, with ``mind_problem`` saying
    why for the latter).
    """

    row: int
    model: str
    chart_id: str
    fact_answer: str | None
    mind_answer: str | None
    mind_prediction: float | None
    mind_justification: str | None
    mind_problem: str | None = None


@dataclass
class ModelAnswers:
    rows: list[ModelAnswerRow] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def models(self) -> list[str]:
        return list(dict.fromkeys(r.model for r in self.rows))


# --------------------------------------------------------------------------- checks


def check_against_charts(
    rows: Iterable[ModelAnswerRow], known_chart_ids: Iterable[str], *, filename: str = "answers"
) -> list[Problem]:
    """A problem for every row whose chart id is not one of the study's charts."""
    known = set(known_chart_ids)
    by_fold = {k.casefold(): k for k in known}
    problems = []
    for row in rows:
        if row.chart_id in known:
            continue
        hint = by_fold.get(row.chart_id.casefold())
        message = f"Chart {row.chart_id!r} is not in this study"
        message += f" (did you mean {hint}?)." if hint else "."
        problems.append(Problem(filename, row.row, message, UNKNOWN_CHART))
    return problems


@dataclass(frozen=True)
class ModelCoverage:
    """What one model answered out of a study's charts.

    ``missing`` are the charts with no answer at all; ``missing_fact`` and
    ``missing_mind`` those without a FACT answer / a readable MIND prediction.
    """

    model: str
    total: int
    answered: int
    fact_answered: int
    mind_answered: int
    missing: list[str]
    missing_fact: list[str]
    missing_mind: list[str]

    @property
    def coverage(self) -> float:
        return self.answered / self.total if self.total else 0.0


def coverage(rows: Iterable[ModelAnswerRow], known_chart_ids: Iterable[str]) -> list[ModelCoverage]:
    """Per model, how many of ``known_chart_ids`` it answered, listing the gaps.

    Rows for charts outside the study are not counted (see
    :func:`check_against_charts`).
    """
    known = sorted(set(known_chart_ids), key=natural_key)
    rows = list(rows)
    out = []
    for model in dict.fromkeys(r.model for r in rows):
        mine = {r.chart_id: r for r in rows if r.model == model and r.chart_id in set(known)}
        any_answer = {
            c for c, r in mine.items() if r.fact_answer is not None or r.mind_answer is not None
        }
        fact = {c for c, r in mine.items() if r.fact_answer is not None}
        mind = {c for c, r in mine.items() if r.mind_prediction is not None}
        out.append(
            ModelCoverage(
                model=model,
                total=len(known),
                answered=len(any_answer),
                fact_answered=len(fact),
                mind_answered=len(mind),
                missing=[c for c in known if c not in any_answer],
                missing_fact=[c for c in known if c not in fact],
                missing_mind=[c for c in known if c not in mind],
            )
        )
    return out


# --------------------------------------------------------------------------- FACT


@dataclass(frozen=True)
class FactCheck:
    """``correct`` is None when there was no answer; ``problem`` says why an answer is wrong unread."""

    correct: bool | None
    problem: str | None = None


def check_fact_answer(
    answer: str | None,
    answer_type: str,
    key,
    *,
    options: Sequence[str] | None = None,
    tolerance: float = DEFAULT_TOLERANCE,
) -> FactCheck:
    """Score a model's FACT answer with the participants' rule (``studies.answer_types.check_answer``).

    No answer gives ``correct`` None (left out of error rates, counted against
    coverage). An answer the checker cannot read ("40-50", two different
    numbers, an option that is not listed) is wrong, with the reason: a
    participant is asked again, a model's reply is final. A bad key raises
    ``studies.answers.KeyFormatError``, which is the researcher's to fix.
    """
    if answer is None or not str(answer).strip():
        return FactCheck(None)
    try:
        return FactCheck(
            check_answer(answer_type, answer, key, options=options, tolerance=tolerance)
        )
    except AnswerFormatError as exc:
        return FactCheck(False, f"answer not readable: {exc.message}")
