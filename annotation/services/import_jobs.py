"""Large caption imports as background jobs.

A project of 100,000 captions with a zip of charts takes longer to import than a web
worker may spend on a request, so uploads over ``CHARTROOM_CAPTIONS_INLINE_BYTES``
(caption file and images together) are saved to private storage and imported by a job
of kind ``annotation.captions_import``; smaller ones import in the request, which gives
instant feedback. Both run :func:`captions_import`: the same checks, every row or none.

The job's result holds the import's ``ImportBatch`` id, or the problems (file and row)
when nothing was imported. The stored upload is deleted when the job ends, either way.
"""

from __future__ import annotations

import logging
import uuid
from contextlib import ExitStack
from pathlib import PurePosixPath

from django.conf import settings
from django.core.files import File
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connection, connections
from django.utils import timezone

from annotation.caption_formats import Problem
from annotation.models import Project
from annotation.selectors.imports import CAPTIONS_IMPORT_JOB
from annotation.services.imports import (
    ImportRejected,
    ImportResult,
    captions_import,
    upload_limit_problem,
)
from core.models import Job, User
from core.services.jobs import job_create
from core.storage import private_storage

logger = logging.getLogger(__name__)

UPLOAD_DIR = "imports/captions"
# A job result is read by every poll of the page and the API; the rejected ImportBatch
# keeps every problem, the result the first ones.
RESULT_PROBLEMS = 1000


def captions_import_in_background(*, upload: File, images: File | None = None) -> bool:
    """Whether an upload is too large to import in the request."""
    size = upload.size + (images.size if images else 0)
    return size > settings.CHARTROOM_CAPTIONS_INLINE_BYTES


def captions_import_enqueue(
    *,
    project: Project,
    user: User,
    upload: File,
    images: File | None = None,
    format: str | None = None,
) -> Job:
    """Save the upload privately and queue the job that imports it.

    Raises :class:`ImportRejected` at once for an upload over the overall size limit,
    so such a file is never stored.
    """
    too_large = upload_limit_problem(upload.size + (images.size if images else 0))
    if too_large:
        raise ImportRejected([too_large])
    storage = private_storage()
    # A random name: a stored upload cannot be guessed or confused with another's.
    token = uuid.uuid4().hex
    stored = [storage.save(f"{UPLOAD_DIR}/{token}-captions", upload)]
    try:
        if images:
            stored.append(storage.save(f"{UPLOAD_DIR}/{token}-images.zip", images))
        return job_create(
            kind=CAPTIONS_IMPORT_JOB,
            params={
                "project": project.pk,
                "user": user.pk,
                "upload": stored[0],
                "filename": _basename(upload.name, "captions"),
                "images": stored[1] if images else "",
                "images_filename": _basename(images.name, "images.zip") if images else "",
                "format": format or "",
            },
            subject=project.subject,
            user=user,
        )
    except BaseException:
        for name in stored:
            storage.delete(name)
        raise


def captions_import_upload(
    *,
    project: Project,
    user: User,
    upload: File,
    images: File | None = None,
    format: str | None = None,
) -> ImportResult | Job:
    """Import an uploaded caption file (and zip of chart images), as the page and the API do:
    in the request when small, else in a job. Returns the import's result or the queued job;
    raises :class:`ImportRejected` when nothing could be imported."""
    if captions_import_in_background(upload=upload, images=images):
        return captions_import_enqueue(
            project=project, user=user, upload=upload, images=images, format=format
        )
    return captions_import(
        project=project,
        data=upload.read(),
        filename=upload.name,
        user=user,
        images=images.read() if images else None,
        images_filename=images.name if images else "",
        format=format,
    )


def _basename(name: str | None, default: str) -> str:
    return PurePosixPath(str(name or "").replace("\\", "/")).name[:255] or default


def problem_as_result(problem: Problem, *, filename: str, images_filename: str) -> dict:
    """A problem as the job result shows it: the file at fault and its row, with the reason."""
    return {
        "file": images_filename if problem.field == "images" else filename,
        "row": problem.record,
        "id": problem.id,
        "field": problem.field,
        "reason": problem.reason,
        "message": str(problem),
    }


def captions_import_job_run(*, job: Job, report) -> dict:
    """The body of an import job: import the stored upload, then delete it."""
    params = job.params
    storage = private_storage()
    progress = _JobProgress(job, report)
    filename, images_filename = params["filename"], params.get("images_filename", "")
    try:
        project = Project.objects.filter(pk=params["project"]).first()
        if project is None:
            problem = Problem(None, "", "project", "the project was deleted before the import ran.")
            return _rejected([problem], None, filename, images_filename)
        report(0.0, "Reading the upload")
        with ExitStack() as stack:
            # Open files, not their bytes: the import reads them as streams.
            data = stack.enter_context(storage.open(params["upload"], "rb"))
            images = None
            if params.get("images"):
                images = stack.enter_context(storage.open(params["images"], "rb"))
            result = captions_import(
                project=project,
                data=data,
                filename=filename,
                user=User.objects.filter(pk=params.get("user")).first(),
                images=images,
                images_filename=images_filename,
                format=params.get("format") or None,
                progress=progress,
            )
    except ImportRejected as rejected:
        return _rejected(rejected.problems, rejected.batch, filename, images_filename)
    finally:
        progress.close()
        for name in (params.get("upload"), params.get("images")):
            if name:
                storage.delete(name)
    return {
        "ok": True,
        "batch": result.batch.pk,
        "records": result.batch.records,
        "created": result.created,
        "duplicates": len(result.duplicates),
        "existing": len(result.existing),
        "seconds": round(result.seconds, 3),
        "summary": result.summary(),
    }


def _rejected(problems, batch, filename: str, images_filename: str) -> dict:
    return {
        "ok": False,
        "batch": batch.pk if batch else None,
        "problem_count": len(problems),
        "problems": [
            problem_as_result(p, filename=filename, images_filename=images_filename)
            for p in problems[:RESULT_PROBLEMS]
        ],
    }


class _JobProgress:
    """Progress that pages can see while the import's transaction is still open.

    The rows of an import are written in one transaction, and an update of the job row
    made inside it would only become visible at its commit: the bar would sit still and
    then jump to done. On PostgreSQL the reports made inside a transaction therefore go
    through a second connection of their own, committed at once. SQLite allows only one
    writer at a time, so there (the embedded default, where jobs run in-process anyway)
    they go through the job's own connection.
    """

    def __init__(self, job: Job, report):
        self.job = job
        self.report = report
        self.side = None
        self.side_failed = False

    def __call__(self, fraction: float, message: str) -> None:
        aside = connection.in_atomic_block and connection.vendor == "postgresql"
        if not (aside and self._report_aside(fraction, message)):
            self.report(fraction, message)

    def _report_aside(self, fraction: float, message: str) -> bool:
        if self.side_failed:
            return False
        try:
            if self.side is None:
                self.side = connections.create_connection(DEFAULT_DB_ALIAS)
                with self.side.cursor() as cursor:
                    # Never wait on a job row the importing connection holds locked itself.
                    cursor.execute("SET lock_timeout = '2s'")
            table = self.side.ops.quote_name(Job._meta.db_table)
            with self.side.cursor() as cursor:
                cursor.execute(
                    f"UPDATE {table} SET progress = %s, message = %s, heartbeat_at = %s "
                    "WHERE id = %s",
                    [max(0.0, min(1.0, fraction)), message[:300], timezone.now(), self.job.pk],
                )
        except DatabaseError:
            logger.warning("Job %s: progress is shown at the end only", self.job.pk, exc_info=True)
            self.side_failed = True
            self.close()
            return False
        return True

    def close(self) -> None:
        if self.side is not None:
            self.side.close()
            self.side = None
