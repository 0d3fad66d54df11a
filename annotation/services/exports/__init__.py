"""Exports of an annotation project: the aggregated dataset, raw labels, the report."""

from annotation.services.exports.chocolate import chocolate_chunks, chocolate_records, image_path
from annotation.services.exports.files import (
    EXPORT_FORMATS,
    ExportFile,
    current_report_data,
    default_label_source,
    project_export,
)
from annotation.services.exports.labels import (
    LABEL_COLUMNS,
    label_rows,
    labels_csv_chunks,
    labels_jsonl_chunks,
)
from annotation.services.exports.report import (
    TABLES,
    NoSuchTable,
    report_document,
    table_csv,
    table_rows,
)

__all__ = [
    "EXPORT_FORMATS",
    "ExportFile",
    "LABEL_COLUMNS",
    "TABLES",
    "NoSuchTable",
    "chocolate_chunks",
    "chocolate_records",
    "current_report_data",
    "default_label_source",
    "image_path",
    "label_rows",
    "project_export",
    "labels_csv_chunks",
    "labels_jsonl_chunks",
    "report_document",
    "table_csv",
    "table_rows",
]
