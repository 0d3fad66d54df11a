"""Reading a file of model answers to a study's FACT and MIND questions.

A model runner writes one row per model x chart, as CSV or JSON Lines (a JSON
array of the same objects is accepted too)::

    model, chart_id, fact_answer, mind_prediction, mind_justification

Header variants are accepted, case, spaces and hyphens aside: "model name" /
"llm" for model; "chart" / "id" / "image" for chart_id (an image file name
such as "charts/G1_Q1_2.png" is read as its chart id); "fact" / "answer" for
fact_answer; "mind" / "mind answer" / "prediction" / "predicted hmi" for
mind_prediction; "justification" / "reason" / "reasoning" / "explanation" for
mind_justification. Other columns (raw replies, timings) are ignored.

The MIND prediction is read from free text with
:func:`analysis.model_eval.extract_probability` ("I predict 0.35 because ..."
gives 0.35). A MIND answer without a readable number in [0, 1] is reported as
a problem and kept with ``mind_prediction`` None, never guessed. When there
is no separate justification, the whole MIND text is the justification.

Reading never stops at the first problem: every problem comes back with its
row number (CSV: the header is row 1, as a spreadsheet shows it; JSON Lines:
the line number; a JSON array: the item's position from 1). Which problems
block an import is the caller's decision; ``Problem.kind`` tells them apart
(see :mod:`studies.model_answers_format` for the rows, problems and checks).

Text is decoded as :func:`studies.benchmark_format.decode_text` does (UTF-8
with or without BOM, UTF-16/32 with BOM, else cp1252).
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
from collections.abc import Sequence
from pathlib import Path, PurePosixPath, PureWindowsPath

from analysis.model_eval.probability import extract_probability
from core import json_input
from core.csv_input import csv_error_text, extra_cells, too_many_cells_text
from studies.benchmark_format import decode_text
from studies.model_answers_format import (
    CELLS,
    DEFAULT_MAX_BYTES,
    DUPLICATE,
    FILE,
    MAX_MODEL_NAME,
    MIND,
    MISSING,
    VALUE,
    ModelAnswerRow,
    ModelAnswers,
    Problem,
)

_ALIASES = {
    "model": "model",
    "model_name": "model",
    "modelname": "model",
    "llm": "model",
    "model_id": "model",
    "chart_id": "chart_id",
    "chartid": "chart_id",
    "chart": "chart_id",
    "id": "chart_id",
    "image": "chart_id",
    "chart_image": "chart_id",
    "fact_answer": "fact_answer",
    "fact": "fact_answer",
    "answer": "fact_answer",
    "fact_response": "fact_answer",
    "mind_prediction": "mind_prediction",
    "mind": "mind_prediction",
    "mind_answer": "mind_prediction",
    "mind_response": "mind_prediction",
    "prediction": "mind_prediction",
    "predicted_hmi": "mind_prediction",
    "hmi_prediction": "mind_prediction",
    "mind_justification": "mind_justification",
    "justification": "mind_justification",
    "mind_reason": "mind_justification",
    "reason": "mind_justification",
    "reasoning": "mind_justification",
    "explanation": "mind_justification",
    "mind_explanation": "mind_justification",
}
_IMAGE_SUFFIX = re.compile(r"\.(?:png|jpe?g|gif|webp|svg)$", re.IGNORECASE)


def _column(name: str) -> str:
    return re.sub(r"[\s_\-]+", "_", str(name).strip().lstrip("\ufeff").casefold()).strip("_")


def _read_bytes(source, max_bytes: int) -> tuple[bytes, str | None]:
    if isinstance(source, bytes | bytearray | memoryview):
        data = bytes(source)
        name = None
    elif isinstance(source, str | os.PathLike):
        path = Path(source)
        size = path.stat().st_size
        if size > max_bytes:
            raise ValueError(
                f"the file is {size / 1e6:.1f} MB; the limit is {max_bytes / 1e6:.0f} MB"
            )
        data, name = path.read_bytes(), path.name
    elif hasattr(source, "read"):
        data = source.read(max_bytes + 1)
        if isinstance(data, str):
            data = data.encode("utf-8")
        name = getattr(source, "name", None)
    else:
        raise TypeError("pass a path, bytes or a binary file object")
    if len(data) > max_bytes:
        raise ValueError(f"the file is larger than the limit of {max_bytes / 1e6:.0f} MB")
    return data, (Path(str(name)).name if name else None)


def _kind(filename: str, text: str) -> str:
    suffix = PurePosixPath(filename.lower()).suffix
    if suffix in (".jsonl", ".ndjson", ".json"):
        return "json"
    if suffix in (".csv", ".tsv", ".txt"):
        return "csv"
    return "json" if text.lstrip()[:1] in ("{", "[") else "csv"


class _Reader:
    def __init__(self, filename: str):
        self.filename = filename
        self.result = ModelAnswers()
        self.seen: dict[tuple[str, str], int] = {}

    def problem(self, row: int | None, message: str, kind: str) -> None:
        self.result.problems.append(Problem(self.filename, row, message, kind))

    # -- layouts

    def mapping(self, names: Sequence[str], row: int) -> list[str | None] | None:
        """Each column's field name (None if ignored); None after reporting a clash."""
        mapped, owner = [], {}
        for name in names:
            canonical = _ALIASES.get(_column(name))
            if canonical is not None and canonical in owner:
                self.problem(
                    row,
                    f"Columns {owner[canonical]!r} and {name!r} both mean "
                    f"{canonical.replace('_', ' ')}; keep one.",
                    FILE,
                )
                return None
            if canonical is not None:
                owner[canonical] = name
            mapped.append(canonical)
        return mapped

    def require_fields(self, present: set[str], row: int | None, found: str, what: str) -> bool:
        missing = [c.replace("_", " ") for c in ("model", "chart_id") if c not in present]
        if not {"fact_answer", "mind_prediction"} & present:
            missing.append("fact answer or mind prediction")
        if missing:
            self.problem(
                row, f"Missing {what}: {', '.join(missing)} (found: {found or 'nothing'}).", FILE
            )
        return not missing

    def read_csv(self, text: str) -> None:
        first_line = text.split("\n", 1)[0]
        delimiter = max((",", ";", "\t"), key=first_line.count)
        try:
            reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
            rows = []
            for row in reader:
                rows.append(row)
                row_starts = reader.line_num + 1
        except csv.Error as exc:
            line = row_starts if rows else 1
            self.problem(None, f"The file is {csv_error_text(exc, line)}", FILE)
            return
        numbered = [(n, r) for n, r in enumerate(rows, start=1) if any(c.strip() for c in r)]
        if not numbered:
            self.problem(None, "The file is empty.", FILE)
            return
        (header_row, header), body = numbered[0], numbered[1:]
        mapped = self.mapping(header, header_row)
        if mapped is None:
            return
        found = ", ".join(h.strip() for h in header if h.strip())
        if not self.require_fields({m for m in mapped if m}, header_row, found, "column(s)"):
            return
        if not body:
            self.problem(None, "The file has a header but no answer rows.", FILE)
            return
        for number, cells in body:
            if extra_cells(cells, len(header)):
                self.problem(number, too_many_cells_text(cells, len(header)), CELLS)
                continue
            record = {}
            for name, value in zip(mapped, cells, strict=False):
                if name is not None:
                    record.setdefault(name, value)
            self.add(number, record)

    def read_json(self, text: str) -> None:
        stripped = text.strip()
        items: list[tuple[int, object]] = []
        if stripped.startswith("["):
            try:
                data = json_input.loads(stripped)
            except json.JSONDecodeError as exc:
                self.problem(exc.lineno, f"The file is not valid JSON ({exc.msg}).", FILE)
                return
            items = list(enumerate(data, start=1))
        else:
            for number, line in enumerate(text.split("\n"), start=1):
                if not line.strip():
                    continue
                try:
                    items.append((number, json_input.loads(line)))
                except json.JSONDecodeError as exc:
                    self.problem(number, f"Not a valid JSON object ({exc.msg}).", FILE)
        objects = []
        for number, item in items:
            if not isinstance(item, dict):
                self.problem(number, "Each answer must be a JSON object with named fields.", FILE)
                continue
            mapped = self.mapping([str(k) for k in item], number)
            if mapped is not None:
                objects.append((number, item, mapped))
        if not objects:
            if not self.result.problems:
                self.problem(None, "The file holds no answers.", FILE)
            return
        present = {m for _, _, mapped in objects for m in mapped if m}
        keys = ", ".join(dict.fromkeys(str(k) for _, item, _ in objects for k in item))
        # Checked over the whole file: a field no object has is a layout problem
        # to report once, not on every row.
        if not self.require_fields(present, None, keys, "field(s)"):
            return
        for number, item, mapped in objects:
            record = {}
            for (key, value), name in zip(item.items(), mapped, strict=True):
                if name is None:
                    continue
                text_value = self.cell(number, key, value)
                if text_value is not None:
                    record[name] = text_value
            self.add(number, record)

    def cell(self, row: int, key: str, value) -> str | None:
        if value is None:
            return ""
        if isinstance(value, bool):
            self.problem(row, f"{key!r} is true/false, not an answer.", VALUE)
            return None
        if isinstance(value, int | float):
            return repr(value) if isinstance(value, float) else str(value)
        if isinstance(value, str):
            return value
        if isinstance(value, list) and all(isinstance(v, str | int | float) for v in value):
            # A ranking given as a list: "A > B > C" is what the ranking check reads.
            return " > ".join(str(v) for v in value)
        self.problem(row, f"{key!r} must be text or a number.", VALUE)
        return None

    # -- rows

    def add(self, number: int, record: dict[str, str]) -> None:
        model = " ".join(str(record.get("model", "")).split())
        chart_id = _chart_id(record.get("chart_id", ""))
        missing = [n for n, v in (("model", model), ("chart id", chart_id)) if not v]
        if missing:
            self.problem(number, f"No {' and no '.join(missing)}.", MISSING)
            return
        if json_input.holds_nul(record):  # PostgreSQL stores no NUL in text: it was a 500
            self.problem(number, "This row holds a NUL character (binary data, not text).", VALUE)
            return
        if len(model) > MAX_MODEL_NAME:  # the column's limit (a longer one was a 500)
            self.problem(
                number, f"The model's name is longer than {MAX_MODEL_NAME} characters.", VALUE
            )
            return
        key = (model, chart_id)
        if key in self.seen:
            self.problem(
                number,
                f"A second answer from {model!r} for chart {chart_id} "
                f"(the first is on row {self.seen[key]}).",
                DUPLICATE,
            )
            return
        self.seen[key] = number
        fact = _text(record.get("fact_answer"))
        mind = _text(record.get("mind_prediction"))
        justification = _text(record.get("mind_justification"))
        prediction, mind_problem = None, None
        if mind is not None:
            prediction, mind_problem = extract_probability(mind)
            if mind_problem:
                self.problem(
                    number, f"MIND answer for {chart_id} from {model!r}: {mind_problem}.", MIND
                )
            if justification is None and re.search(r"[^\W\d_]", mind):
                justification = mind
        self.result.rows.append(
            ModelAnswerRow(
                row=number,
                model=model,
                chart_id=chart_id,
                fact_answer=fact,
                mind_answer=mind,
                mind_prediction=prediction,
                mind_justification=justification,
                mind_problem=mind_problem,
            )
        )


def _text(value) -> str | None:
    if value is None:
        return None
    value = str(value).strip()
    return value or None


def _chart_id(value) -> str:
    text = str(value or "").strip()
    if _IMAGE_SUFFIX.search(text):
        text = _IMAGE_SUFFIX.sub("", PureWindowsPath(text).name)
    return text


def read_model_answers(
    source, filename: str | None = None, *, max_bytes: int = DEFAULT_MAX_BYTES
) -> ModelAnswers:
    """Read a CSV / JSON Lines / JSON file of model answers; see the module docstring.

    ``source`` is a path, the file's bytes or a binary file object;
    ``filename`` (used for the format and in messages) defaults to the path's
    name. Returns the readable rows and every problem found.
    """
    try:
        data, own_name = _read_bytes(source, max_bytes)
    except (OSError, ValueError) as exc:
        name = filename or (
            Path(str(source)).name if isinstance(source, str | os.PathLike) else "answers"
        )
        return ModelAnswers(
            problems=[Problem(name, None, f"The file cannot be read: {exc}.", FILE)]
        )
    reader = _Reader(filename or own_name or "answers")
    if not data.strip():
        reader.problem(None, "The file is empty.", FILE)
        return reader.result
    try:
        text = decode_text(data)
    except ValueError as exc:
        reader.problem(None, f"The file cannot be decoded: {exc}.", FILE)
        return reader.result
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    if _kind(reader.filename, text) == "json":
        reader.read_json(text)
    else:
        reader.read_csv(text)
    # File-wide problems first, then in row order, whatever order they were found in.
    reader.result.problems.sort(key=lambda p: (p.row is not None, p.row or 0))
    return reader.result
