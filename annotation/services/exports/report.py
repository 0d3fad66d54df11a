"""The report as a JSON document and its tables as CSV files.

Rows are keyed by plain names (decision or category key, split, model,
dataset, pseudonymous annotator id), so a notebook can read them without
knowing anything about the platform's database.
"""

from __future__ import annotations

import copy
import io

from core.csv_safety import csv_dict_writer

RATE_COLUMNS = ("model", "dataset", "factual", "nonfactual", "total", "factual_rate", "error_rate")
TABLES = {
    "agreement": (
        ("agreement", "decisions"),
        ("decision", "name", "fleiss_kappa", "majority_agreement", "krippendorff_alpha",
         "gwet_ac1", "sentences", "sentences_all", "raters", "annotators", "positive_share"),
    ),
    "left-out": (
        ("agreement", "left_out"), ("raters", "items", "sentences", "reason", "ids", "more"),
    ),
    "pairwise": (
        ("agreement", "pairwise"), ("annotator_a", "annotator_b", "sentences", "cohen_kappa"),
    ),
    "annotators": (
        ("agreement", "annotators"),
        ("annotator", "items", "sentences", "factual_share", "factual_agree", "factual_counted",
         "factual_ties", "decisions_share", "decisions_agree", "decisions_counted",
         "nonfactual_share", "marks_per_sentence"),
    ),
    "annotator-estimates": (
        ("aggregation", "estimates"),
        ("annotator", "category", "sensitivity", "specificity", "control_score", "controls"),
    ),
    "uncertain": (
        ("aggregation", "uncertain"),
        ("item", "sentence", "category", "p_positive", "label", "text"),
    ),
    "factuality": (
        ("tables", "factuality"),
        ("split", "captions", "factual_captions", "nonfactual_captions", "sentences",
         "factual_sentences", "nonfactual_sentences"),
    ),
    "sentence-rates": (("tables", "sentence_rates"), RATE_COLUMNS),
    "caption-rates": (("tables", "caption_rates"), RATE_COLUMNS),
    "error-types": (("tables", "error_types"), ("dataset", "model", "sentences")),
}  # fmt: skip


class NoSuchTable(LookupError):
    pass


def report_document(data: dict, *, with_aggregation: bool = True) -> dict:
    """The stored report as published: without the annotators' account names.

    ``with_aggregation=False`` leaves out the aggregation part (annotator
    estimates, least certain labels), giving the document as it was before
    aggregation methods existed.
    """
    document = copy.deepcopy(data)
    document.pop("annotator_names", None)
    if not with_aggregation:
        document.pop("aggregation", None)
    return document


def table_rows(data: dict, name: str) -> tuple[list[str], list[dict]]:
    """Columns and rows of one of ``TABLES`` (empty rows when the report has no such part)."""
    if name not in TABLES:
        raise NoSuchTable(f"No table {name!r}; use one of {', '.join(TABLES)}.")
    path, columns = TABLES[name]
    rows = data
    for key in path:
        rows = (rows or {}).get(key)
    rows = list(rows or [])
    columns = list(columns)
    if name == "error-types":
        columns += [c["key"] for c in data.get("categories", [])]
    return columns, rows


def table_csv(data: dict, name: str) -> str:
    columns, rows = table_rows(data, name)
    buffer = io.StringIO()
    writer = csv_dict_writer(buffer, columns, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in rows:
        cells = {
            key: " ".join(value) if isinstance(value, list) else ("" if value is None else value)
            for key, value in row.items()
        }
        writer.writerow(cells)
    return buffer.getvalue()
