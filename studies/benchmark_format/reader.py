"""What both layouts share: reading text, images and tables, and turning drafts into charts.

:class:`_Reader` collects problems instead of raising; the layout readers
(``chartom.py``, ``manifest.py``) fill a :class:`_Draft` per chart and call
:meth:`_Reader.build`, which checks pairs and answer keys.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from dataclasses import dataclass

from core.csv_input import csv_error_text, extra_cells, too_many_cells_text
from core.csv_safety import csv_unescape
from studies.answer_types import get_type, normalize_key
from studies.answers import KeyFormatError
from studies.answers.choices import question_stem
from studies.images import ImageRejected, ValidatedImage, human_size, validate_image

from .names import (
    CHART_TYPES,
    _column,
    answer_type_from_label,
    chart_type_slug,
    manipulation_label,
)
from .records import ChartId, ChartRecord, Problem, _sort_key
from .sources import _Limits, _ReadError, _Source
from .text import _tidy_question, decode_text

# The longest manipulation name stored (ManipulationType.label's max_length): a longer one
# used to be cut to it without a word.
MAX_MANIPULATION_NAME = 100


@dataclass
class _Draft:
    """What the files say about one chart; None marks a part already reported as a problem."""

    chart_id: ChartId
    key_file: str
    key_row: int | None
    chart_type: str | None = None
    manipulation: str | None = None
    manipulation_label: str | None = None
    answer_type: str | None = None
    answer: str | None = None
    question_text: str | None = None
    image: ValidatedImage | None = None


class _Reader:
    """Reads from one source and appends every problem to ``problems`` instead of stopping."""

    def __init__(self, source: _Source, problems: list[Problem], limits: _Limits):
        self.source = source
        self.problems = problems
        self.limits = limits

    def problem(self, rel: str, row: int | None, message: str) -> None:
        self.problems.append(
            Problem(self.source.full(rel) if rel else self.source.label, row, message)
        )

    # -- files

    def read_text(self, rel: str) -> str | None:
        try:
            data = self.source.read(rel, self.limits.max_text_bytes)
        except _ReadError as exc:
            if exc.size is not None:
                self.problem(
                    rel,
                    None,
                    f"The file is {human_size(exc.size)}; text files may be at most "
                    f"{human_size(self.limits.max_text_bytes)}.",
                )
            else:
                self.problem(rel, None, exc.message)
            return None
        try:
            return decode_text(data)
        except ValueError as exc:
            self.problem(rel, None, f"Cannot read the text: {exc}.")
            return None

    def read_image(self, rel: str) -> ValidatedImage | None:
        try:
            data = self.source.read(rel, self.limits.max_image_bytes)
        except _ReadError as exc:
            if exc.size is not None:
                self.problem(
                    rel,
                    None,
                    f"The image is {human_size(exc.size)}; "
                    f"the limit is {human_size(self.limits.max_image_bytes)}. "
                    "Please save it smaller.",
                )
            else:
                self.problem(rel, None, exc.message)
            return None
        try:
            return validate_image(
                data,
                max_bytes=self.limits.max_image_bytes,
                max_pixels=self.limits.max_image_pixels,
            )
        except ImageRejected as exc:
            self.problem(rel, None, exc.message)
            return None

    def read_table(
        self, rel: str, required: Iterable[str], aliases: dict[str, str]
    ) -> list[tuple[int, dict[str, str]]] | None:
        """Rows of a CSV file as (row number, {column: stripped value}); None if unusable."""
        text = self.read_text(rel)
        if text is None:
            return None
        first_line = text.lstrip("\ufeff").split("\n", 1)[0]
        delimiter = max((",", ";", "\t"), key=first_line.count)
        try:
            # Exports escape formula-like cells (core.csv_safety); read them back as written.
            rows = [
                [csv_unescape(cell) for cell in row]
                for row in csv.reader(
                    io.StringIO(text, newline=""), delimiter=delimiter, strict=True
                )
            ]
        except csv.Error as exc:
            self.problem(rel, None, f"The file is {csv_error_text(exc)}")
            return None
        if not rows:
            self.problem(
                rel, None, "The file is empty; it needs a header row and one row per chart."
            )
            return None
        header = [aliases.get(_column(h), _column(h)) for h in rows[0]]
        missing = [c for c in required if c not in header]
        if missing:
            wanted = ", ".join(c.replace("_", " ") for c in missing)
            found = ", ".join(h for h in rows[0] if h.strip()) or "nothing"
            self.problem(rel, 1, f"Missing column(s): {wanted} (the header has: {found}).")
            return None
        table = []
        for number, cells in enumerate(rows[1:], start=2):
            if not any(c.strip() for c in cells):
                continue
            if extra_cells(cells, len(header)):
                # Dropped, they were lost: an unquoted comma in a manipulation's name made a
                # new manipulation of the part before it.
                self.problem(rel, number, too_many_cells_text(cells, len(header)))
                continue
            record = {}
            for name, value in zip(header, cells, strict=False):
                record.setdefault(name, value.strip())
            for name in required:
                record.setdefault(name, "")
            table.append((number, record))
        return table

    # -- shared checks

    def build(
        self, drafts: dict[ChartId, _Draft], where: dict[ChartId, tuple[str, int | None]]
    ) -> list[ChartRecord]:
        for chart_id in sorted(drafts, key=_sort_key):
            if chart_id.partner not in drafts:
                file, row = where[chart_id]
                self.problem(
                    file,
                    row,
                    f"{chart_id} has no partner {chart_id.partner}; every question needs its "
                    "non-manipulated (_1) and manipulated (_2) chart.",
                )
        charts = []
        for chart_id in sorted(drafts, key=_sort_key):
            record = self.build_one(drafts[chart_id])
            if record is not None:
                charts.append(record)
        return charts

    def build_one(self, draft: _Draft) -> ChartRecord | None:
        parts = (
            draft.chart_type,
            draft.manipulation,
            draft.answer_type,
            draft.answer,
            draft.question_text,
            draft.image,
        )
        if any(p is None for p in parts):
            return None
        chart_id = draft.chart_id
        options = get_type(draft.answer_type).question_options([], draft.question_text)
        try:
            value = normalize_key(draft.answer_type, draft.answer, options=options)
        except KeyFormatError as exc:
            self.problem(draft.key_file, draft.key_row, f"{chart_id}: {exc.message}")
            return None
        return ChartRecord(
            chart_id=str(chart_id),
            group=chart_id.group_id,
            question_id=chart_id.question_id,
            version=chart_id.version,
            chart_type=draft.chart_type,
            manipulation=draft.manipulation,
            manipulation_label=draft.manipulation_label,
            answer_type=draft.answer_type,
            question_text=draft.question_text,
            question=question_stem(draft.question_text),
            options=options,
            answer_key=draft.answer,
            answer_value=value,
            image=draft.image,
        )

    def answer_type(self, rel: str, row: int, chart_id: ChartId, text: str) -> str | None:
        answer_type = answer_type_from_label(text)
        if answer_type is None:
            self.problem(
                rel,
                row,
                f"{chart_id}: unknown answer type {text!r}; "
                "use multiple choice, free text or rank.",
            )
        return answer_type

    def chart_type(self, rel: str, row: int, text: str) -> str | None:
        chart_type = chart_type_slug(text)
        if chart_type is None:
            self.problem(
                rel, row, f"Unknown chart type {text!r}; use one of: {', '.join(CHART_TYPES)}."
            )
        return chart_type

    def manipulation_name(self, rel: str, row: int, slug: str, written: str) -> str | None:
        """The display name of a manipulation written ``written``, or None (reported) when it
        is longer than a name can be."""
        label = manipulation_label(slug, written)
        if len(label) > MAX_MANIPULATION_NAME:
            self.problem(
                rel,
                row,
                f"The manipulation {label[:40].rstrip() + '…'!r} is {len(label)} characters long; a "
                f"manipulation's name can have at most {MAX_MANIPULATION_NAME}. Shorten it.",
            )
            return None
        return label

    def question(self, rel: str) -> str | None:
        text = self.read_text(rel)
        if text is None:
            return None
        text = _tidy_question(text)
        if not text:
            self.problem(rel, None, "The question file is empty.")
            return None
        return text

    def naming_message(self, text: str) -> str:
        return (
            f"The chart id {text!r} does not follow the naming G<group>_Q<question>_<1|2>, "
            "e.g. G7_Q1_2 (_1 non-manipulated, _2 manipulated)."
        )
