"""Raw labels in long form: one row per (annotator, item, sentence, category decision).

Annotators appear under their pseudonymous project ids (A01, A02 ...), never by
account name. Every label set is exported, counted or not, with the
annotator's qualification state and, for a label set that is left out of
aggregation and agreement, the reason. With an aggregation method chosen,
each row also carries the method, the sentence's aggregated label for the
category and its posterior P(label = 1) (AGGREGATE_COLUMNS; empty where no
counted label set decided the sentence).

With ``labels="reference"`` the rows are the imported reference labels instead, in the
same columns: the annotator is "reference", with no label set, state or times.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator

from annotation.models import Project
from annotation.selectors.agreement import (
    annotator_pseudonyms,
    annotator_states,
    item_ids,
    label_set_flags,
    label_set_rows,
    reference_labels,
    report_categories,
)
from annotation.services.reports.aggregate import aggregated_with_posteriors
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
AGGREGATE_COLUMNS = ("method", "aggregated", "p_positive")


def _time(value) -> str:
    return value.isoformat() if value is not None else ""


def label_rows(*, project: Project, method: str | None = None) -> Iterator[dict]:
    """Rows of LABEL_COLUMNS, plus AGGREGATE_COLUMNS when ``method`` is given."""
    keys = [c.key for c in report_categories(project)]
    arrays = {}
    if method is not None:
        _labels, arrays, _keys = aggregated_with_posteriors(project, method=method)
    pseudonyms = annotator_pseudonyms(project)
    states = annotator_states(project)
    flags = label_set_flags(project)
    for row in label_set_rows(project):
        label_set, item, external_id, annotator, labels, seconds, leased, submitted = row
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
        aggregate = arrays.get(item)
        for sentence, marked in enumerate(labels):
            marked = set(marked)
            for j, key in enumerate(keys):
                row = {
                    "item": external_id,
                    "sentence": sentence,
                    "category": key,
                    "value": key in marked,
                    **shared,
                }
                if method is not None:
                    row.update(_aggregate_cells(method, aggregate, sentence, j))
                yield row


REFERENCE_ANNOTATOR = "reference"


def reference_label_rows(*, project: Project) -> Iterator[dict]:
    """The imported reference labels as rows of LABEL_COLUMNS, item by item."""
    keys = [c.key for c in report_categories(project)]
    external = item_ids(project)
    for item_id, labels in sorted(reference_labels(project).items()):
        for sentence, marked in enumerate(labels):
            marked = set(marked)
            for key in keys:
                yield {
                    "item": external.get(item_id, ""),
                    "sentence": sentence,
                    "category": key,
                    "value": key in marked,
                    "annotator": REFERENCE_ANNOTATOR,
                    "annotator_state": "",
                    "label_set": None,
                    # Reference labels are the data as imported: nothing leaves them out.
                    "counted": True,
                    "excluded_because": "",
                    "active_seconds": None,
                    "leased_at": "",
                    "submitted_at": "",
                }


def _rows(project: Project, labels: str, method: str | None) -> Iterator[dict]:
    if labels == "reference":
        return reference_label_rows(project=project)
    return label_rows(project=project, method=method)


def _aggregate_cells(method: str, aggregate, sentence: int, column: int) -> dict:
    value = p = None
    if aggregate is not None and sentence < len(aggregate[0]):
        label, posterior = aggregate[0][sentence, column], aggregate[1][sentence, column]
        if label == label:  # not NaN
            value, p = bool(label), round(float(posterior), 6)
    return {"method": method, "aggregated": value, "p_positive": p}


def labels_csv_chunks(
    *,
    project: Project,
    method: str | None = None,
    labels: str = "annotators",
    rows_per_chunk: int = 2000,
) -> Iterator[str]:
    buffer = io.StringIO()
    columns = LABEL_COLUMNS + (AGGREGATE_COLUMNS if method is not None else ())
    writer = csv_dict_writer(buffer, columns, lineterminator="\n")
    writer.writeheader()
    for n, row in enumerate(_rows(project, labels, method), start=1):
        row = {**row, "value": int(row["value"]), "counted": int(row["counted"])}
        if method is not None:
            aggregated = row["aggregated"]
            row["aggregated"] = "" if aggregated is None else int(aggregated)
            row["p_positive"] = "" if row["p_positive"] is None else row["p_positive"]
        writer.writerow(row)
        if n % rows_per_chunk == 0:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue()


def labels_jsonl_chunks(
    *,
    project: Project,
    method: str | None = None,
    labels: str = "annotators",
    rows_per_chunk: int = 2000,
) -> Iterator[str]:
    lines = []
    for row in _rows(project, labels, method):
        lines.append(json.dumps(row, ensure_ascii=False))
        if len(lines) >= rows_per_chunk:
            yield "\n".join(lines) + "\n"
            lines = []
    if lines:
        yield "\n".join(lines) + "\n"
