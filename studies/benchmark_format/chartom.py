"""Reading the released CHARTOM layout: answer keys, question files, images and manipulations."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

from studies.images import IMAGE_EXTENSIONS

from .layout import IMAGES_DIR, KEYS_FILE, MANIPULATIONS_FILE, QUESTIONS_DIR
from .names import _CHARTOM_COLUMNS, KNOWN_MANIPULATIONS, manipulation_slug
from .reader import _Draft, _Reader
from .records import ChartId, ChartRecord, _sort_key, parse_chart_id

# A row of chart_manipulations.csv names one chart (G7_Q1_2) or a whole group (G7_*_2).
_MANIPULATION_ID = re.compile(
    r"G0*(?P<g>\d{1,4})_(?:\*|Q0*(?P<q>\d{1,4}))_(?P<v>[12])", re.IGNORECASE
)


class _ChartomReader(_Reader):
    """Reads the released layout: key and manipulation tables, one question file and image per chart."""

    def read_chartom(self) -> list[ChartRecord]:
        src = self.source
        keys_rel = src.find(KEYS_FILE)
        manip_rel = src.find(MANIPULATIONS_FILE)
        if keys_rel is None:
            self.problem(
                KEYS_FILE, None, "This file is missing; it lists every chart's answer type and key."
            )
        if manip_rel is None:
            self.problem(
                MANIPULATIONS_FILE,
                None,
                "This file is missing; it gives each group's chart type and manipulation.",
            )

        questions = self.list_charts(QUESTIONS_DIR, {"txt"}, "question file")
        images = self.list_charts(IMAGES_DIR, IMAGE_EXTENSIONS, "image")
        keys_file = keys_rel or KEYS_FILE
        key_rows = (
            self.read_table(keys_rel, ("chart_id", "answer_type", "answer"), _CHARTOM_COLUMNS)
            if keys_rel
            else None
        )
        drafts, where = self.key_drafts(key_rows, keys_file)

        # A missing file or folder is reported once above, not again for every chart.
        every_id = set(drafts) | set(questions or {}) | set(images or {})
        for chart_id in sorted(every_id, key=_sort_key):
            if chart_id not in drafts:
                if key_rows is not None:
                    self.problem(
                        keys_file, None, f"No answer key for {chart_id}; add a row for it."
                    )
                drafts[chart_id] = _Draft(chart_id, keys_file, None)
                found_in = (questions or {}).get(chart_id) or (images or {}).get(chart_id)
                where[chart_id] = (found_in, None)
            self.fill_draft(drafts[chart_id], questions, images)

        if manip_rel is not None:
            self.apply_manipulations(manip_rel, drafts)
        return self.build(drafts, where)

    def key_drafts(
        self, key_rows, keys_file: str
    ) -> tuple[dict[ChartId, _Draft], dict[ChartId, tuple[str, int | None]]]:
        """A draft per chart listed in the answer key table, and where each was listed."""
        drafts: dict[ChartId, _Draft] = {}
        where: dict[ChartId, tuple[str, int | None]] = {}
        first_row: dict[ChartId, int] = {}
        for row, record in key_rows or []:
            chart_id = parse_chart_id(record["chart_id"])
            if chart_id is None:
                self.problem(keys_file, row, self.naming_message(record["chart_id"]))
                continue
            if chart_id in first_row:
                self.problem(
                    keys_file,
                    row,
                    f"{chart_id} is listed again (first in row {first_row[chart_id]}).",
                )
                continue
            first_row[chart_id] = row
            draft = _Draft(chart_id, keys_file, row)
            draft.answer_type = self.answer_type(keys_file, row, chart_id, record["answer_type"])
            draft.answer = record["answer"]
            if not draft.answer:
                self.problem(keys_file, row, f"{chart_id}: the answer is empty.")
                draft.answer = None
            drafts[chart_id] = draft
            where[chart_id] = (keys_file, row)
        return drafts, where

    def fill_draft(self, draft: _Draft, questions: dict | None, images: dict | None) -> None:
        """The chart's question text and image, when their folders exist."""
        chart_id = draft.chart_id
        if questions is not None:
            if chart_id in questions:
                draft.question_text = self.question(questions[chart_id])
            else:
                self.problem(
                    f"{QUESTIONS_DIR}/{chart_id}.txt",
                    None,
                    f"The question file for {chart_id} is missing.",
                )
        if images is not None:
            if chart_id in images:
                draft.image = self.read_image(images[chart_id])
            else:
                self.problem(
                    f"{IMAGES_DIR}/{chart_id}.png",
                    None,
                    f"The image for {chart_id} is missing.",
                )

    def list_charts(
        self, folder: str, extensions: Iterable[str], what: str
    ) -> dict[ChartId, str] | None:
        """Chart files in ``folder`` by id; None when the folder is missing."""
        folder_rel = self.source.find(folder)
        if folder_rel is None or self.source.listdir(folder_rel) is None:
            self.problem(
                f"{folder}/", None, f"This folder is missing; it holds one {what} per chart."
            )
            return None
        found: dict[ChartId, str] = {}
        for name in self.source.listdir(folder_rel):
            if name.endswith("/"):
                continue
            stem, _, ext = name.rpartition(".")
            if not stem or ext.casefold() not in extensions:
                continue
            rel = f"{folder_rel}/{name}"
            chart_id = parse_chart_id(stem)
            if chart_id is None:
                self.problem(rel, None, self.naming_message(stem))
            elif chart_id in found:
                self.problem(
                    rel,
                    None,
                    f"A second {what} for {chart_id} (also {self.source.full(found[chart_id])}).",
                )
            else:
                found[chart_id] = rel
        return found

    def apply_manipulations(self, rel: str, drafts: dict[ChartId, _Draft]) -> None:
        rows = self.read_table(
            rel, ("chart_id", "chart_type", "planted_manipulation"), _CHARTOM_COLUMNS
        )
        if rows is None:
            return
        # (group, question or None for "*", version) -> (row, chart type, slug, label)
        table: dict[tuple[int, int | None, int], tuple[int, str | None, str, str]] = {}
        for row, record in rows:
            match = _MANIPULATION_ID.fullmatch(re.sub(r"\s+", "", record["chart_id"]))
            if not match:
                self.problem(
                    rel,
                    row,
                    f"The chart id {record['chart_id']!r} should name a chart (G7_Q1_2) or "
                    "a whole group (G7_*_2).",
                )
                continue
            key = (int(match["g"]), int(match["q"]) if match["q"] else None, int(match["v"]))
            if key in table:
                self.problem(
                    rel,
                    row,
                    f"{record['chart_id']} is listed again (first in row {table[key][0]}).",
                )
                continue
            chart_type = self.chart_type(rel, row, record["chart_type"])
            written = record["planted_manipulation"]
            slug = manipulation_slug(written, chart_type)
            if key[2] == 1 and slug != "none":
                self.problem(
                    rel,
                    row,
                    f"{record['chart_id']} is a non-manipulated (_1) chart but names "
                    "the manipulation "
                    f"{written!r}; leave it empty or write none.",
                )
            if key[2] == 2 and not written:
                self.problem(rel, row, f"{record['chart_id']}: the planted manipulation is empty.")
            label = self.manipulation_name(rel, row, slug, written)
            # A name too long to store leaves the charts it covers without a manipulation.
            table[key] = (row, chart_type, slug if label is not None else None, label)

        used: set[tuple[int, int | None, int]] = set()
        uncovered: dict[int, list[ChartId]] = defaultdict(list)
        for chart_id, draft in drafts.items():
            g, q, v = chart_id.group, chart_id.question, chart_id.version
            if v == 2:
                candidates = [(g, q, 2), (g, None, 2)]
            else:
                candidates = [(g, q, 1), (g, None, 1), (g, q, 2), (g, None, 2)]
            key = next((k for k in candidates if k in table), None)
            if key is None:
                uncovered[g].append(chart_id)
                continue
            used.add(key)
            _, chart_type, slug, label = table[key]
            draft.chart_type = chart_type
            if v == 2:
                draft.manipulation, draft.manipulation_label = slug, label
            else:
                draft.manipulation, draft.manipulation_label = "none", KNOWN_MANIPULATIONS["none"]
        for group, ids in sorted(uncovered.items()):
            listed = ", ".join(str(i) for i in sorted(ids, key=_sort_key))
            self.problem(
                rel,
                None,
                f"No row gives the chart type and manipulation of {listed}; add a row G{group}_*_2 "
                "for the group or one per chart.",
            )
        for key, (row, *_rest) in sorted(table.items(), key=lambda kv: kv[1][0]):
            if key not in used:
                g, q, v = key
                name = f"G{g}_{'*' if q is None else f'Q{q}'}_{v}"
                self.problem(rel, row, f"{name} matches no chart in the benchmark.")
