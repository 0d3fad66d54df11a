"""Reading caption files: CHOCOLATE JSON, JSON Lines and CSV, into checked records.

Every record is checked and every problem collected (record number, id, field,
reason), so a researcher fixes a file in one pass. Identical repeats of an id are
reported and kept once; repeats that differ are problems. No Django import.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Collection
from dataclasses import dataclass, field

from annotation.labels import LabelProblem, clean_labels

FORMATS = ("json", "jsonl", "csv")
MAX_ID = 200
MAX_META = 60
MAX_IMAGE_REF = 1000


@dataclass(frozen=True)
class Problem:
    """Why a record (or, with ``record`` None, the whole file) cannot be imported."""

    record: int | None
    id: str
    field: str
    reason: str

    def as_dict(self) -> dict:
        return {"record": self.record, "id": self.id, "field": self.field, "reason": self.reason}

    def __str__(self) -> str:
        where = "file" if self.record is None else f"record {self.record}"
        if self.id:
            where += f" ({self.id})"
        return f"{where}: {self.field}: {self.reason}"


@dataclass(frozen=True)
class Record:
    number: int  # 1-based position in the file (data rows for CSV)
    id: str
    sentences: tuple[str, ...]
    labels: tuple[tuple[str, ...], ...] | None
    model: str
    dataset: str
    image: str

    def content(self) -> tuple:
        return (self.sentences, self.labels, self.model, self.dataset, self.image)


@dataclass
class Parsed:
    format: str
    records: list[Record] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    # id -> record numbers of identical repeats (the first is the one kept)
    duplicates: dict[str, list[int]] = field(default_factory=dict)
    total: int = 0


def detect_format(filename: str, data: bytes) -> str | None:
    name = filename.lower()
    if name.endswith(".jsonl") or name.endswith(".ndjson"):
        return "jsonl"
    if name.endswith(".json"):
        return "json"
    if name.endswith(".csv"):
        return "csv"
    head = data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    if head == b"[":
        return "json"
    if head == b"{":
        return "jsonl"
    return None


def _not_utf8(data: bytes, exc: UnicodeDecodeError, record: int | None = None) -> Problem:
    line = data[: exc.start].count(b"\n") + 1
    byte = data[exc.start : exc.start + 1].hex()
    where = f"line {line}" if record is None else "this record"
    return Problem(
        record,
        "",
        "encoding",
        f"not UTF-8 text: byte 0x{byte} in {where}. Save the file as UTF-8 and import it again.",
    )


def parse_captions(
    data: bytes,
    filename: str,
    *,
    category_keys: Collection[str],
    split: Callable[[str], list[str]],
    format: str | None = None,
) -> Parsed:
    """Read ``data`` in ``format`` (guessed from the name or content when None)."""
    fmt = format or detect_format(filename, data)
    if fmt not in FORMATS:
        parsed = Parsed(format=fmt or "")
        parsed.problems.append(
            Problem(
                None,
                "",
                "format",
                "Unknown file type: use CHOCOLATE JSON (.json), JSON Lines (.jsonl) or CSV (.csv).",
            )
        )
        return parsed
    parsed = Parsed(format=fmt)
    raw = {"json": _json_rows, "jsonl": _jsonl_rows, "csv": _csv_rows}[fmt](data, parsed)
    keys = list(category_keys)
    first_seen: dict[str, Record] = {}
    for number, row in raw:
        parsed.total += 1
        record = _record(number, row, keys, split, parsed.problems)
        if record is None:
            continue
        earlier = first_seen.get(record.id)
        if earlier is None:
            first_seen[record.id] = record
            parsed.records.append(record)
        elif earlier.content() == record.content():
            parsed.duplicates.setdefault(record.id, [earlier.number]).append(number)
        else:
            parsed.problems.append(
                Problem(
                    number,
                    record.id,
                    "_id",
                    f"the same _id as record {earlier.number} but different content; "
                    "give each caption its own id.",
                )
            )
    if parsed.total == 0 and not parsed.problems:
        parsed.problems.append(Problem(None, "", "file", "The file has no records."))
    return parsed


def _decode(data: bytes, parsed: Parsed) -> str | None:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        parsed.problems.append(_not_utf8(data, exc))
        return None


def _json_rows(data: bytes, parsed: Parsed):
    text = _decode(data, parsed)
    if text is None:
        return []
    try:
        rows = json.loads(text)
    except json.JSONDecodeError as exc:
        parsed.problems.append(
            Problem(
                None,
                "",
                "json",
                f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}.",
            )
        )
        return []
    if not isinstance(rows, list):
        parsed.problems.append(
            Problem(None, "", "json", "CHOCOLATE JSON is a list of records ([{...}, ...]).")
        )
        return []
    return list(enumerate(rows, start=1))


def _jsonl_rows(data: bytes, parsed: Parsed):
    rows = []
    number = 0
    for line in data.splitlines():
        if not line.strip():
            continue
        number += 1
        try:
            text = line.decode("utf-8-sig" if number == 1 else "utf-8")
        except UnicodeDecodeError as exc:
            parsed.total += 1
            problem = _not_utf8(line, exc, record=number)
            parsed.problems.append(problem)
            continue
        try:
            rows.append((number, json.loads(text)))
        except json.JSONDecodeError as exc:
            parsed.total += 1
            parsed.problems.append(
                Problem(number, "", "json", f"not valid JSON: {exc.msg}, column {exc.colno}.")
            )
    return rows


def _csv_rows(data: bytes, parsed: Parsed):
    text = _decode(data, parsed)
    if text is None:
        return []
    try:
        reader = csv.DictReader(io.StringIO(text, newline=""))
        columns = [c.strip() for c in reader.fieldnames or []]
        if "caption" not in columns:
            parsed.problems.append(
                Problem(
                    None,
                    "",
                    "caption",
                    "CSV files need a caption column (and _id, model, dataset, image_path).",
                )
            )
            return []
        rows = []
        for number, row in enumerate(reader, start=1):
            cleaned = {(k or "").strip(): v for k, v in row.items()}
            if None in row:  # more cells than header columns
                cleaned["__extra__"] = row[None]
            rows.append((number, cleaned))
        return rows
    except csv.Error as exc:
        parsed.problems.append(Problem(None, "", "csv", f"not valid CSV: {exc}."))
        return []


def _text(value) -> str | None:
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return None


def _record(number, row, keys, split, problems) -> Record | None:
    if not isinstance(row, dict):
        problems.append(Problem(number, "", "record", "each record must be an object with fields."))
        return None
    own: list[Problem] = []
    record_id = _text(row.get("_id", row.get("id")))
    if not record_id:
        own.append(Problem(number, "", "_id", "every record needs an _id."))
        record_id = ""
    elif len(record_id) > MAX_ID:
        own.append(Problem(number, record_id[:40], "_id", f"ids are at most {MAX_ID} characters."))

    def bad(field_name, reason):
        own.append(Problem(number, record_id or "", field_name, reason))

    if "__extra__" in row:
        bad("csv", "this row has more cells than the header has columns.")

    sentences: list[str] = []
    if row.get("sentences") not in (None, ""):
        value = row["sentences"]
        if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
            bad("sentences", "sentences must be a list of texts.")
        else:
            # Kept exactly as given (line breaks and all), so exports round-trip.
            sentences = list(value)
            if not sentences or not all(s.strip() for s in sentences):
                bad("sentences", "the caption is empty or has an empty sentence.")
    elif "caption" in row:
        caption = _text(row.get("caption"))
        if caption is None:
            bad("caption", "the caption must be text.")
        else:
            sentences = split(caption)
            if not sentences:
                bad("caption", "the caption is empty.")
    else:
        bad("sentences", "the record has neither sentences nor a caption.")

    labels = row.get("labels")
    if isinstance(labels, str):
        if labels.strip():
            try:
                labels = json.loads(labels)
            except json.JSONDecodeError:
                bad("labels", "labels must be JSON: one list of categories per sentence.")
                labels = None
        else:
            labels = None
    cleaned_labels = None
    if labels is not None and sentences:
        try:
            cleaned_labels = tuple(
                tuple(s) for s in clean_labels(labels, sentences=len(sentences), keys=keys)
            )
        except LabelProblem as exc:
            bad("labels", str(exc))

    meta = {}
    for name in ("model", "dataset"):
        value = _text(row.get(name))
        if value is None:
            bad(name, f"{name} must be text.")
        elif len(value) > MAX_META:
            bad(name, f"{name} is at most {MAX_META} characters.")
        meta[name] = value or ""
    image = _text(row.get("image_path", row.get("image", row.get("image_url"))))
    if image is None:
        bad("image_path", "image_path must be a URL or a file name.")
    elif len(image) > MAX_IMAGE_REF:
        bad("image_path", f"image_path is at most {MAX_IMAGE_REF} characters.")

    if own:
        problems.extend(own)
        return None
    return Record(
        number=number,
        id=record_id,
        sentences=tuple(sentences),
        labels=cleaned_labels,
        model=meta["model"],
        dataset=meta["dataset"],
        image=image or "",
    )
