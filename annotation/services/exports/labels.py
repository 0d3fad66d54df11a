"""Raw labels in long form: one row per (annotator, item, sentence, category decision).

Annotators appear under their pseudonymous project ids (A01, A02 ...), never by
account name. Every label set is exported, counted or not, with the
annotator's qualification state and, for a label set that is left out of
aggregation and agreement, the reason.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator

from annotation.models import Project
from annotation.selectors.agreement import (
    annotator_pseudonyms,
    annotator_states,
    label_set_flags,
    label_set_rows,
    report_categories,
)
from core.csv_safety import csv_dict_writer

LABEL_COLUMNS = (
    "item",
    "sentence",
    "category",
    "value",
    "annotator",
    "annotator_state",
    "label_set",
    "counted",
    "excluded_because",
    "active_seconds",
    "leased_at",
    "submitted_at",
)


def _time(value) -> str:
    return value.isoformat() if value is not None else ""


def label_rows(*, project: Project) -> Iterator[dict]:
    keys = [c.key for c in report_categories(project)]
    pseudonyms = annotator_pseudonyms(project)
    states = annotator_states(project)
    flags = label_set_flags(project)
    for row in label_set_rows(project):
        label_set, _item, external_id, annotator, labels, seconds, leased, submitted = row
        shared = {
            "annotator": pseudonyms.get(annotator, f"A?{annotator}"),
            "annotator_state": states.get(annotator, "not a member"),
            "label_set": label_set,
            "counted": label_set not in flags,
            "excluded_because": flags.get(label_set, ""),
            "active_seconds": round(float(seconds), 3),
            "leased_at": _time(leased),
            "submitted_at": _time(submitted),
        }
        for sentence, marked in enumerate(labels):
            marked = set(marked)
            for key in keys:
                yield {
                    "item": external_id,
                    "sentence": sentence,
                    "category": key,
                    "value": key in marked,
                    **shared,
                }


def labels_csv_chunks(*, project: Project, rows_per_chunk: int = 2000) -> Iterator[str]:
    buffer = io.StringIO()
    writer = csv_dict_writer(buffer, LABEL_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for n, row in enumerate(label_rows(project=project), start=1):
        writer.writerow({**row, "value": int(row["value"]), "counted": int(row["counted"])})
        if n % rows_per_chunk == 0:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue()


def labels_jsonl_chunks(*, project: Project, rows_per_chunk: int = 2000) -> Iterator[str]:
    lines = []
    for row in label_rows(project=project):
        lines.append(json.dumps(row, ensure_ascii=False))
        if len(lines) >= rows_per_chunk:
            yield "\n".join(lines) + "\n"
            lines = []
    if lines:
        yield "\n".join(lines) + "\n"
