"""Reading caption files: CHOCOLATE JSON, JSON Lines and CSV, into checked records.

Every record is checked and every problem collected (record number, id, field,
reason), so a researcher fixes a file in one pass. Identical repeats of an id are
reported and kept once; repeats that differ are problems. Files are read as streams
(see caption_streams), never whole. No Django import.
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from typing import BinaryIO

from annotation.caption_streams import (
    StreamProblem,
    binary_lines,
    json_list_items,
    not_utf8_reason,
    text_chunks,
    text_lines,
)
from annotation.labels import LabelProblem, clean_labels
from core import json_input
from core.csv_input import csv_error_text

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


def detect_format(filename: str, head: bytes) -> str | None:
    """The format named by the file's extension, or guessed from its first bytes."""
    name = filename.lower()
    if name.endswith(".jsonl") or name.endswith(".ndjson"):
        return "jsonl"
    if name.endswith(".json"):
        return "json"
    if name.endswith(".csv"):
        return "csv"
    first = head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    if first == b"[":
        return "json"
    if first == b"{":
        return "jsonl"
    return None


_BAD_ROW = object()  # a row whose problem the row reader already recorded


class CaptionReader:
    """The checked records of a caption file, read as a stream.

    Only each id with its record number and a digest of its content stays in memory (to
    find repeats), never the captions themselves: a file can be read twice, once to check
    it and once to write it, with memory that hardly grows with its size. Problems collect
    in ``problems``; ``duplicates`` maps an id repeated with identical content to the
    record numbers of its repeats (the first is the one kept).
    """

    def __init__(
        self,
        source: BinaryIO,
        filename: str,
        *,
        category_keys: Collection[str],
        split: Callable[[str], list[str]],
        format: str | None = None,
    ):
        self.source = source
        start = source.tell()
        head = source.read(64)
        source.seek(start)
        self.format = format or detect_format(filename, head) or ""
        self.keys = list(category_keys)
        self.split = split
        self.problems: list[Problem] = []
        self.duplicates: dict[str, list[int]] = {}
        self.total = 0

    def records(self, *, repeats: Collection[int] | None = None) -> Iterator[Record]:
        """Each record without problems, the first of identical repeats only.

        ``repeats``: the record numbers of identical repeats, as an earlier read of the
        same file found them; they are skipped without keeping any ids in memory.
        """
        if self.format not in FORMATS:
            self.problems.append(
                Problem(
                    None,
                    "",
                    "format",
                    "Unknown file type: use CHOCOLATE JSON (.json), JSON Lines (.jsonl) or CSV (.csv).",
                )
            )
            return
        rows = {"json": self._json_rows, "jsonl": self._jsonl_rows, "csv": self._csv_rows}
        seen: dict[str, tuple[int, bytes]] = {}
        try:
            for number, row in rows[self.format]():
                self.total += 1
                if row is _BAD_ROW:
                    continue
                record = _record(number, row, self.keys, self.split, self.problems)
                if record is None or (repeats is not None and number in repeats):
                    continue
                if repeats is not None:
                    yield record
                    continue
                digest = hashlib.blake2b(repr(record.content()).encode(), digest_size=16).digest()
                earlier = seen.get(record.id)
                if earlier is None:
                    seen[record.id] = (number, digest)
                    yield record
                elif earlier[1] == digest:
                    self.duplicates.setdefault(record.id, [earlier[0]]).append(number)
                else:
                    self.problems.append(
                        Problem(
                            number,
                            record.id,
                            "_id",
                            f"the same _id as record {earlier[0]} but different content; "
                            "give each caption its own id.",
                        )
                    )
        except StreamProblem as exc:
            self.problems.append(Problem(None, "", exc.field, exc.reason))
        if self.total == 0 and not self.problems:
            self.problems.append(Problem(None, "", "file", "The file has no records."))

    def _json_rows(self):
        return enumerate(json_list_items(text_chunks(self.source)), start=1)

    def _jsonl_rows(self):
        number = 0
        for line in binary_lines(self.source):
            if not line.strip():
                continue
            number += 1
            try:
                text = line.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                reason = not_utf8_reason(line[exc.start], "this record")
                self.problems.append(Problem(number, "", "encoding", reason))
                yield number, _BAD_ROW
                continue
            try:
                yield number, json_input.loads(text)
            except json.JSONDecodeError as exc:
                reason = f"not valid JSON: {exc.msg}, column {exc.colno}."
                self.problems.append(Problem(number, "", "json", reason))
                yield number, _BAD_ROW

    def _csv_rows(self):
        row_starts = 1  # the line the row being read starts on
        try:
            # Strict: a quote opened and never closed would otherwise take every row after
            # it into one cell, and those rows would be lost without a word.
            reader = csv.DictReader(text_lines(text_chunks(self.source)), strict=True)
            columns = [c.strip() for c in reader.fieldnames or []]
            if "caption" not in columns:
                self.problems.append(
                    Problem(
                        None,
                        "",
                        "caption",
                        "CSV files need a caption column (and _id, model, dataset, image_path).",
                    )
                )
                return
            row_starts = reader.line_num + 1
            for number, row in enumerate(reader, start=1):
                cleaned = {(k or "").strip(): v for k, v in row.items()}
                if None in row:  # more cells than header columns
                    cleaned["__extra__"] = row[None]
                yield number, cleaned
                row_starts = reader.line_num + 1
        except csv.Error as exc:
            self.problems.append(Problem(None, "", "csv", csv_error_text(exc, row_starts)))


def _text(value) -> str | None:
    """A cell as text: "" for nothing, None for what is no text (a list, true, NaN)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    # Python's JSON reader takes NaN and Infinity (and 1e400 as infinity), which JSON has
    # no such numbers for: they became the texts "nan" and "inf".
    if isinstance(value, float) and math.isfinite(value):
        return str(value)
    return None


def _record_sentences(row: dict, split, bad) -> list[str]:
    """The caption's sentences, given as a list or as one caption text to split."""
    if row.get("sentences") not in (None, ""):
        value = row["sentences"]
        if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
            bad("sentences", "sentences must be a list of texts.")
            return []
        # Kept exactly as given (line breaks and all), so exports round-trip.
        sentences = list(value)
        if not sentences or not all(s.strip() for s in sentences):
            bad("sentences", "the caption is empty or has an empty sentence.")
        return sentences
    if "caption" in row:
        caption = _text(row.get("caption"))
        if caption is None:
            bad("caption", "the caption must be text.")
            return []
        sentences = split(caption)
        if not sentences:
            bad("caption", "the caption is empty.")
        return sentences
    bad("sentences", "the record has neither sentences nor a caption.")
    return []


def _record_labels(row: dict, sentences: list[str], keys, bad) -> tuple | None:
    """The record's labels (a list, or JSON text from a CSV cell), checked against the sentences."""
    labels = row.get("labels")
    if isinstance(labels, str):
        if labels.strip():
            try:
                labels = json_input.loads(labels)
            except json.JSONDecodeError:
                bad("labels", "labels must be JSON: one list of categories per sentence.")
                labels = None
        else:
            labels = None
    if labels is None or not sentences:
        return None
    try:
        return tuple(tuple(s) for s in clean_labels(labels, sentences=len(sentences), keys=keys))
    except LabelProblem as exc:
        bad("labels", str(exc))
        return None


def _record_meta(row: dict, bad) -> tuple[dict[str, str], str | None]:
    """The model and dataset texts and the image reference."""
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
    return meta, image


def _record(number, row, keys, split, problems) -> Record | None:
    if not isinstance(row, dict):
        problems.append(Problem(number, "", "record", "each record must be an object with fields."))
        return None
    own: list[Problem] = []
    record_id = _text(row.get("_id", row.get("id")))
    if record_id is None:
        own.append(Problem(number, "", "_id", 'an _id is a text or a number, such as "c17" or 17.'))
        record_id = ""
    elif not record_id:
        own.append(Problem(number, "", "_id", "every record needs an _id."))
    elif len(record_id) > MAX_ID:
        own.append(Problem(number, record_id[:40], "_id", f"ids are at most {MAX_ID} characters."))

    def bad(field_name, reason):
        own.append(Problem(number, record_id or "", field_name, reason))

    if "__extra__" in row:
        bad("csv", "this row has more cells than the header has columns.")
    if json_input.holds_nul(row):  # PostgreSQL stores no NUL in text: it was a 500
        bad("text", "it holds a NUL character (binary data, not text); remove it and import again.")
    sentences = _record_sentences(row, split, bad)
    cleaned_labels = _record_labels(row, sentences, keys, bad)
    meta, image = _record_meta(row, bad)
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
