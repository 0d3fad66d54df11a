"""Study exports: the HMI dataset (zip, JSON) and the responses (long/wide, CSV/Parquet)."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.core.files import File
from django.db import transaction
from django.utils import timezone

from core.models import Job
from core.services.audit import audit_record
from core.services.jobs import job_create
from core.streaming import export_transaction, in_one_transaction
from studies.models import Study
from studies.services.exports import hmi, responses


@dataclass(frozen=True)
class ExportFormat:
    slug: str
    label: str
    extension: str
    content_type: str


FORMATS = {
    f.slug: f
    for f in (
        ExportFormat(
            "hmi-zip",
            "HMI dataset to publish (zip: CHARTOM layout, Croissant, card)",
            "zip",
            "application/zip",
        ),
        ExportFormat("hmi-json", "HMI dataset (JSON)", "json", "application/json"),
        ExportFormat("responses-csv", "Responses, long form (CSV)", "csv", "text/csv"),
        ExportFormat("responses-wide-csv", "Responses, wide form (CSV)", "csv", "text/csv"),
        ExportFormat(
            "responses-parquet",
            "Responses, long form (Parquet)",
            "parquet",
            "application/vnd.apache.parquet",
        ),
        ExportFormat(
            "responses-wide-parquet",
            "Responses, wide form (Parquet)",
            "parquet",
            "application/vnd.apache.parquet",
        ),
    )
}
EXPORT_JOB = "studies.results_export"


def export_format(slug: str) -> ExportFormat:
    if slug not in FORMATS:
        raise ValidationError(
            {"format": [f"Unknown format {slug!r}; choose one of {', '.join(FORMATS)}."]}
        )
    return FORMATS[slug]


def export_filename(study: Study, slug: str) -> str:
    fmt = export_format(slug)
    stem = slug.replace("-zip", "").replace("-json", "").replace("-csv", "").replace("-parquet", "")
    return f"{study.slug}-{stem}-{timezone.now():%Y%m%d-%H%M}.{fmt.extension}"


def _rows(study: Study, slug: str, include_platform_ids: bool):
    if "wide" in slug:
        return responses.wide_rows(study, include_platform_ids=include_platform_ids)
    return (
        responses.long_columns(include_platform_ids),
        responses.long_rows(study, include_platform_ids=include_platform_ids),
    )


def export_write(*, study: Study, slug: str, out, include_platform_ids: bool = False) -> None:
    """Write an export to ``out``: a binary file object (or, for zip and Parquet, a path).

    In one transaction on PostgreSQL: see ``core.streaming.in_one_transaction``.
    """
    export_format(slug)
    with export_transaction():
        _export_write(study=study, slug=slug, out=out, include_platform_ids=include_platform_ids)


def _export_write(*, study: Study, slug: str, out, include_platform_ids: bool) -> None:
    if slug == "hmi-zip":
        hmi.hmi_zip_write(study, out)
    elif slug == "hmi-json":
        _write(out, hmi.hmi_json_bytes(study))
    elif slug.endswith("-csv"):
        columns, rows = _rows(study, slug, include_platform_ids)
        for chunk in responses.csv_chunks(columns, rows):
            _write(out, chunk.encode("utf-8"))
    else:
        columns, rows = _rows(study, slug, include_platform_ids)
        responses.write_parquet(columns, rows, out)


def _write(out, data: bytes) -> None:
    if isinstance(out, str | os.PathLike):
        with open(out, "ab") as handle:
            handle.write(data)
    else:
        out.write(data)


def export_csv_stream(*, study: Study, slug: str, include_platform_ids: bool = False):
    """CSV text chunks for a StreamingHttpResponse."""

    def chunks():
        columns, rows = _rows(study, slug, include_platform_ids)
        yield from responses.csv_chunks(columns, rows)

    return in_one_transaction(chunks())


def export_log_platform_ids(*, study: Study, user, slug: str) -> None:
    audit_record(
        actor=user,
        action="study.export_platform_ids",
        subject=study.subject,
        reason="Export with platform ids requested",
        details={"format": slug},
    )


def export_request(*, study: Study, slug: str, user, include_platform_ids: bool = False) -> Job:
    """Build an export in the background; the job's file is the download.

    The same export already queued or being built is that job (``was_already_queued``),
    not a second one: a double click or a client's retry builds it once.
    """
    export_format(slug)
    if include_platform_ids:
        export_log_platform_ids(study=study, user=user, slug=slug)
    with transaction.atomic():
        # One request at a time per study decides whether the export is already coming.
        Study.objects.select_for_update().filter(pk=study.pk).first()
        job = (
            Job.objects.filter(
                kind=EXPORT_JOB,
                subject=study.subject,
                state__in=[Job.State.QUEUED, Job.State.RUNNING],
                params__format=slug,
                params__include_platform_ids=include_platform_ids,
            )
            .order_by("-pk")
            .first()
        )
        if job is not None:
            job.was_already_queued = True
            return job
        job = job_create(
            kind=EXPORT_JOB,
            params={
                "study": study.pk,
                "format": slug,
                "include_platform_ids": include_platform_ids,
            },
            subject=study.subject,
            user=user,
        )
    job.was_already_queued = False
    return job


def export_job_run(*, job: Job, report) -> dict:
    study = Study.objects.get(pk=job.params["study"])
    slug = job.params["format"]
    report(0.05, f"Writing {FORMATS[slug].label}")
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "export")
        with open(path, "wb") as handle:
            export_write(
                study=study,
                slug=slug,
                out=handle,
                include_platform_ids=bool(job.params.get("include_platform_ids")),
            )
        size = os.path.getsize(path)
        with open(path, "rb") as handle:
            job.result_file.save(export_filename(study, slug), File(handle), save=False)
    Job.objects.filter(pk=job.pk).update(result_file=job.result_file.name)
    return {"format": slug, "bytes": size, "file": job.result_file.name.rsplit("/", 1)[-1]}


__all__ = [
    "EXPORT_JOB",
    "FORMATS",
    "export_csv_stream",
    "export_filename",
    "export_format",
    "export_job_run",
    "export_log_platform_ids",
    "export_request",
    "export_write",
]
