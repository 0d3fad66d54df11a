"""One entry point for every export, shared by the page, the API and the command."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass

from django.core.exceptions import ValidationError

from analysis.aggregation import METHODS
from annotation.models import Project
from annotation.selectors.agreement import counted_label_sets, report_fingerprint
from annotation.services.exports.chocolate import chocolate_chunks, chocolate_records
from annotation.services.exports.dataset import dataset_zip_bytes
from annotation.services.exports.labels import labels_csv_chunks, labels_jsonl_chunks
from annotation.services.exports.report import report_document
from annotation.services.reports import (
    check_label_source,
    report_compute,
    report_latest,
    report_store,
)
from core.streaming import in_one_transaction

EXPORT_FORMATS = ("chocolate", "labels-csv", "labels-jsonl", "report-json", "dataset-zip")


@dataclass
class ExportFile:
    filename: str
    content_type: str
    chunks: Iterator[str] | Iterator[bytes]
    binary: bool = False

    def byte_chunks(self) -> Iterator[bytes]:
        for chunk in self.chunks:
            yield chunk if isinstance(chunk, bytes) else chunk.encode("utf-8")

    @property
    def http_content_type(self) -> str:
        return self.content_type if self.binary else f"{self.content_type}; charset=utf-8"


def default_label_source(project: Project) -> str:
    """Annotators' labels once there are any, else the imported reference labels."""
    if counted_label_sets(project).exists():
        return "annotators"
    from annotation.models import ReferenceLabels

    if ReferenceLabels.objects.filter(item__project=project).exists():
        return "reference"
    return "annotators"


def current_report_data(
    *, project: Project, labels: str, include_excluded: bool = False, method: str | None = None
) -> dict:
    """The stored report when it is up to date, else one computed (and stored) now.

    A ``method`` other than the project's is computed for this export only: the
    stored snapshot stays the project's.
    """
    if labels == "annotators" and method not in (None, project.aggregation_method):
        return report_compute(
            project=project, labels=labels, include_excluded=include_excluded, method=method
        ).data
    snapshot = report_latest(project=project, labels=labels, include_excluded=include_excluded)
    fingerprint = report_fingerprint(project, labels=labels, include_excluded=include_excluded)
    if snapshot is not None and snapshot.fingerprint == fingerprint:
        return snapshot.data
    computed = report_compute(project=project, labels=labels, include_excluded=include_excluded)
    report_store(
        project=project, computed=computed, labels=labels, include_excluded=include_excluded
    )
    return computed.data


def project_export(
    *,
    project: Project,
    fmt: str,
    labels: str | None = None,
    include_excluded: bool = False,
    base_url: str = "",
    method: str | None = None,
) -> ExportFile:
    """The file of ``fmt`` for ``project``; raw label formats are the annotators' unless
    ``labels`` is "reference" (the imported labels in the same columns).

    ``method`` aggregates the annotators' labels (default: the project's method).
    When a method is chosen here or on the project, the files carry it and the
    posteriors; with neither (majority vote) they are exactly as before methods existed.
    """
    if fmt not in EXPORT_FORMATS:
        raise ValidationError(
            {"format": [f"Unknown export format {fmt!r}; use one of {', '.join(EXPORT_FORMATS)}."]}
        )
    check_label_source(labels)
    if method is not None and method not in METHODS:
        raise ValidationError({"method": [f"Choose one of {', '.join(METHODS)}."]})
    carry = method is not None or project.aggregation_method != "majority"
    chosen = (method or project.aggregation_method) if carry else None
    slug, suffix = project.slug, f"-{chosen}" if carry else ""
    if fmt in ("labels-csv", "labels-jsonl"):
        # Raw labels are the annotators' unless the reference labels are asked for by name.
        if labels == "reference":
            chosen, name = None, f"{slug}-reference-labels"
        else:
            name = f"{slug}-labels{suffix}"
        writer = labels_csv_chunks if fmt == "labels-csv" else labels_jsonl_chunks
        chunks = writer(project=project, method=chosen, labels=labels or "annotators")
        if fmt == "labels-csv":
            return ExportFile(f"{name}.csv", "text/csv", in_one_transaction(chunks))
        return ExportFile(f"{name}.jsonl", "application/x-ndjson", in_one_transaction(chunks))
    labels = labels or default_label_source(project)
    if fmt == "dataset-zip":
        data = dataset_zip_bytes(
            project=project, labels=labels, include_excluded=include_excluded, base_url=base_url
        )
        return ExportFile(f"{slug}-dataset-{labels}.zip", "application/zip", iter([data]), True)
    suffix = suffix if labels == "annotators" else ""
    if fmt == "chocolate":
        records = chocolate_records(
            project=project,
            labels=labels,
            include_excluded=include_excluded,
            base_url=base_url,
            method=chosen,
            posteriors=carry,
        )
        return ExportFile(
            f"{slug}-{labels}{suffix}.json",
            "application/json",
            in_one_transaction(chocolate_chunks(records)),
        )
    data = current_report_data(
        project=project, labels=labels, include_excluded=include_excluded, method=chosen
    )
    document = report_document(data, with_aggregation=carry)
    text = json.dumps(document, ensure_ascii=False, indent=1) + "\n"
    return ExportFile(f"{slug}-report-{labels}{suffix}.json", "application/json", iter([text]))
