"""Reading a researcher's manifest (CSV or JSON): one row per chart, images by relative path."""

from __future__ import annotations

import json
import re
from pathlib import PurePosixPath

from core import json_input
from studies.images import ValidatedImage

from .names import (
    _MANIFEST_COLUMNS,
    _MANIFEST_FIELDS,
    _column,
    manipulation_slug,
)
from .reader import _Draft, _Reader
from .records import ChartId, ChartRecord, parse_chart_id
from .text import _tidy_question


class _ManifestReader(_Reader):
    """Reads a manifest (CSV or JSON list) whose rows carry every field of a chart."""

    def read_manifest(self, rel: str) -> list[ChartRecord]:
        if rel.casefold().endswith(".json"):
            records = self.read_json_manifest(rel)
        else:
            records = self.read_table(rel, _MANIFEST_FIELDS, _MANIFEST_COLUMNS)
        if records is None:
            return []
        drafts: dict[ChartId, _Draft] = {}
        where: dict[ChartId, tuple[str, int | None]] = {}
        first_row: dict[ChartId, int] = {}
        for row, record in records:
            chart_id = parse_chart_id(record["chart_id"])
            if chart_id is None:
                self.problem(rel, row, self.naming_message(record["chart_id"]))
                continue
            if chart_id in first_row:
                self.problem(
                    rel, row, f"{chart_id} is listed again (first in row {first_row[chart_id]})."
                )
                continue
            first_row[chart_id] = row
            draft = _Draft(chart_id, rel, row)
            draft.answer_type = self.answer_type(rel, row, chart_id, record["answer_type"])
            draft.answer = record["answer"] or None
            if draft.answer is None:
                self.problem(rel, row, f"{chart_id}: the answer is empty.")
            draft.chart_type = self.chart_type(rel, row, record["chart_type"])
            written = record["manipulation"]
            slug = manipulation_slug(written, draft.chart_type)
            if chart_id.version == 1 and slug != "none":
                self.problem(
                    rel,
                    row,
                    f"{chart_id} is the non-manipulated (_1) chart but names the manipulation "
                    f"{written!r}; leave it empty or write none.",
                )
            elif chart_id.version == 2 and not written:
                self.problem(rel, row, f"{chart_id}: the manipulation is empty.")
            else:
                draft.manipulation_label = self.manipulation_name(rel, row, slug, written)
                draft.manipulation = slug if draft.manipulation_label is not None else None
            text = _tidy_question(record["question"])
            if text:
                draft.question_text = text
            else:
                self.problem(rel, row, f"{chart_id}: the question is empty.")
            draft.image = self.manifest_image(rel, row, chart_id, record["image"])
            drafts[chart_id] = draft
            where[chart_id] = (rel, row)
        return self.build(drafts, where)

    def read_json_manifest(self, rel: str) -> list[tuple[int, dict[str, str]]] | None:
        text = self.read_text(rel)
        if text is None:
            return None
        try:
            items = json_input.loads(text)
        except json.JSONDecodeError as exc:
            self.problem(rel, None, f"The file is not valid JSON ({exc.msg}, line {exc.lineno}).")
            return None
        if not isinstance(items, list):
            self.problem(rel, None, "The manifest must be a JSON list with one object per chart.")
            return None
        records = []
        for number, item in enumerate(items, start=1):
            if not isinstance(item, dict):
                self.problem(rel, number, "Each entry must be an object with the chart's fields.")
                continue
            record = {}
            for key, value in item.items():
                name = _MANIFEST_COLUMNS.get(_column(key), _column(key))
                if isinstance(value, list):  # a ranking key written as a JSON list
                    value = " > ".join(str(v) for v in value)
                record[name] = "" if value is None else str(value).strip()
            missing = [c for c in _MANIFEST_FIELDS if c not in record]
            if missing:
                self.problem(rel, number, f"Missing field(s): {', '.join(missing)}.")
                continue
            records.append((number, record))
        return records

    def manifest_image(
        self, rel: str, row: int, chart_id: ChartId, path: str
    ) -> ValidatedImage | None:
        posix = path.replace("\\", "/").strip()
        manifest_dir = str(PurePosixPath(rel).parent)
        if manifest_dir == ".":
            manifest_dir = ""
        if not posix:
            self.problem(rel, row, f"{chart_id}: the image path is empty.")
            return None
        if posix.startswith("/") or re.match(r"^[A-Za-z]:", posix) or ".." in posix.split("/"):
            self.problem(
                rel,
                row,
                f"{chart_id}: the image path {path!r} must be relative to the manifest "
                "and stay inside its folder.",
            )
            return None
        wanted = f"{manifest_dir}/{posix}" if manifest_dir else posix
        found = self.source.find(wanted)
        if found is None:
            self.problem(rel, row, f"{chart_id}: the image {path!r} is missing.")
            return None
        return self.read_image(found)
