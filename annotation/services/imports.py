"""Importing caption files into a project: all records or none.

The whole file is read and checked first (records, labels, images); only a file
without problems is written, inside one transaction. Chart images from a zip are
stored under content-derived names, so a file written for an import that is then
rejected is harmless and a re-import reuses it.

Large uploads run the same function in a background job (``import_jobs``), which passes
``progress`` to show how far it got and the zip as an open file rather than bytes.
"""

from __future__ import annotations

import io
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import BinaryIO

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.validators import URLValidator
from django.db import IntegrityError, transaction
from django.db.models import Max

from annotation.caption_formats import Parsed, Problem, Record, parse_captions
from annotation.defaults import split_for
from annotation.models import ImportBatch, Item, Project, ReferenceLabels
from annotation.sentences import split_sentences
from core.models import User
from studies.images import ImageRejected, generated_name, validate_image

CHART_DIR = "annotation/charts"
# Items are written this many at a time, with a progress report after each batch.
WRITE_BATCH = 2000
_url = URLValidator(schemes=["http", "https"])

# progress(fraction from 0 to 1, message): how a job shows the stage it is in.
Progress = Callable[[float, str], None]


def _no_progress(fraction: float, message: str) -> None:
    pass


class ImportRejected(ValidationError):
    """The file has problems; ``problems`` lists each with its record and reason."""

    def __init__(self, problems: list[Problem], batch: ImportBatch | None = None):
        self.problems = problems
        self.batch = batch
        shown = [str(p) for p in problems[:50]]
        if len(problems) > 50:
            shown.append(f"... and {len(problems) - 50} more problems.")
        super().__init__({"file": shown})


@dataclass(frozen=True)
class ImportResult:
    batch: ImportBatch
    created: int
    duplicates: dict[str, list[int]]
    existing: list[str]
    seconds: float

    def summary(self) -> str:
        parts = [f"Imported {self.created} item{'s' if self.created != 1 else ''}"]
        parts[0] += f" from {self.batch.filename} in {self.seconds:.1f} s."
        if self.duplicates:
            ids = ", ".join(self.duplicates)
            parts.append(
                f"{len(self.duplicates)} id{'s' if len(self.duplicates) != 1 else ''} appeared "
                f"more than once with identical content and {'were' if len(self.duplicates) != 1 else 'was'} "
                f"imported once: {ids}."
            )
        if self.existing:
            parts.append(
                f"{len(self.existing)} id{'s were' if len(self.existing) != 1 else ' was'} already "
                "in the project and left unchanged."
            )
        return " ".join(parts)


def upload_size(data: bytes | BinaryIO | None) -> int:
    """Bytes in an upload given as bytes or as a seekable binary file."""
    if data is None:
        return 0
    if isinstance(data, bytes | bytearray):
        return len(data)
    position = data.tell()
    size = data.seek(0, io.SEEK_END)
    data.seek(position)
    return size


def upload_limit_problem(size: int) -> Problem | None:
    """The problem with an upload of ``size`` bytes (caption file and images together), if any."""
    limit = settings.CHARTROOM_MAX_UPLOAD_BYTES
    if size > limit:
        return Problem(
            None, "", "file", f"Uploads are limited to {limit // (1024 * 1024)} MB in all."
        )
    return None


class _Images:
    """Chart files of an uploaded zip, found by file name, each checked once."""

    def __init__(self, data: bytes | BinaryIO | None):
        self.archive = None
        self.names: dict[str, str] = {}
        self.checked: dict[str, tuple[str, bytes] | str] = {}
        self.problem = ""
        if data is None:
            return
        try:
            # An open file is read entry by entry: a large zip never has to fit in memory.
            source = io.BytesIO(data) if isinstance(data, bytes | bytearray) else data
            self.archive = zipfile.ZipFile(source)
        except zipfile.BadZipFile:
            self.problem = "the images file is not a valid zip archive."
            return
        for info in self.archive.infolist():
            if info.is_dir():
                continue
            base = PurePosixPath(info.filename.replace("\\", "/")).name
            if base and not base.startswith("."):
                self.names.setdefault(base, info.filename)
                self.names.setdefault(base.lower(), info.filename)

    def get(self, reference: str) -> tuple[str, bytes] | str:
        """(storage name, bytes) or the reason the image cannot be used."""
        base = PurePosixPath(reference.replace("\\", "/")).name
        entry = self.names.get(base) or self.names.get(base.lower())
        if self.archive is None:
            return (
                f"“{reference}” is a file name, but no zip of chart images was uploaded; "
                "upload the images as a zip or give http(s) URLs."
            )
        if entry is None:
            return f"“{base}” is not in the uploaded zip of images."
        if entry in self.checked:
            return self.checked[entry]
        info = self.archive.getinfo(entry)
        limit = settings.CHARTROOM_MAX_IMAGE_BYTES
        if info.file_size > limit:
            outcome = f"“{base}” is larger than {limit // (1024 * 1024)} MB."
        else:
            try:
                image = validate_image(
                    self.archive.read(entry),
                    max_bytes=limit,
                    max_pixels=settings.CHARTROOM_MAX_IMAGE_PIXELS,
                )
                outcome = (
                    f"{CHART_DIR}/{generated_name(image.data, image.extension)}",
                    image.data,
                )
            except ImageRejected as exc:
                outcome = f"“{base}” is not a usable image: {exc.message}"
            except (zipfile.BadZipFile, OSError, RuntimeError) as exc:
                outcome = f"“{base}” could not be read from the zip ({exc})."
        self.checked[entry] = outcome
        return outcome


def _image_problems(
    records: list[Record], images: _Images, tick: Callable[[int], None] = lambda done: None
) -> tuple[list[Problem], dict]:
    problems, files = [], {}
    for done, record in enumerate(records):
        if done % 1000 == 0:
            tick(done)
        ref = record.image
        if not ref:
            continue
        if "://" in ref or ref.lower().startswith(("data:", "javascript:", "mailto:")):
            try:
                _url(ref)
            except ValidationError:
                problems.append(
                    Problem(
                        record.number,
                        record.id,
                        "image_path",
                        "image URLs must be complete http(s) URLs.",
                    )
                )
            continue
        outcome = images.get(ref)
        if isinstance(outcome, str):
            problems.append(Problem(record.number, record.id, "image_path", outcome))
        else:
            files[record.id] = outcome
    return problems, files


def _reject(
    project: Project, user, filename, images_filename, parsed: Parsed, problems, started
) -> ImportRejected:
    batch = ImportBatch.objects.create(
        project=project,
        created_by=user,
        filename=filename[:255],
        images_filename=(images_filename or "")[:255],
        format=parsed.format,
        state=ImportBatch.State.REJECTED,
        records=parsed.total,
        problems=[p.as_dict() for p in problems],
        seconds=time.monotonic() - started,
    )
    return ImportRejected(problems, batch)


def captions_import(
    *,
    project: Project,
    data: bytes,
    filename: str,
    user: User | None = None,
    images: bytes | BinaryIO | None = None,
    images_filename: str = "",
    format: str | None = None,
    progress: Progress | None = None,
) -> ImportResult:
    """Import every record of a caption file, or none (raising :class:`ImportRejected`).

    ``images`` is the zip of chart images as bytes or as an open binary file.
    """
    started = time.monotonic()
    progress = progress or _no_progress
    too_large = upload_limit_problem(len(data) + upload_size(images))
    if too_large:
        raise ImportRejected([too_large])
    progress(0.0, "Parsing the caption file")
    keys = list(project.categories.order_by("position", "pk").values_list("key", flat=True))
    parsed = parse_captions(
        data, filename, category_keys=keys, split=split_sentences, format=format
    )
    problems = list(parsed.problems)
    zipped = _Images(images)
    if zipped.problem:
        problems.append(Problem(None, "", "images", zipped.problem))
    count = max(len(parsed.records), 1)
    image_problems, files = _image_problems(
        parsed.records,
        zipped,
        lambda done: progress(
            0.2 + 0.2 * done / count,
            f"Checking images: {done:,} of {len(parsed.records):,} records",
        ),
    )
    problems.extend(image_problems)
    if problems:
        problems.sort(key=lambda p: (p.record is not None, p.record or 0))
        raise _reject(project, user, filename, images_filename, parsed, problems, started)

    existing_ids = set(Item.objects.filter(project=project).values_list("external_id", flat=True))
    new = [r for r in parsed.records if r.id not in existing_ids]
    existing = [r.id for r in parsed.records if r.id in existing_ids]
    if files:
        progress(0.4, "Storing chart images")
    for name, content in dict(files.values()).items():
        if not default_storage.exists(name):
            default_storage.save(name, ContentFile(content))

    try:
        batch = _write(
            project, user, filename, images_filename, parsed, new, existing, files, progress
        )
    except IntegrityError:
        # Another import into this project added some of the same ids meanwhile.
        problem = Problem(
            None,
            "",
            "_id",
            "another import added some of these ids at the same time; import again.",
        )
        raise _reject(
            project, user, filename, images_filename, parsed, [problem], started
        ) from None
    batch.seconds = time.monotonic() - started
    batch.save(update_fields=["seconds"])
    return ImportResult(
        batch=batch,
        created=len(new),
        duplicates=parsed.duplicates,
        existing=existing,
        seconds=batch.seconds,
    )


@transaction.atomic
def _write(
    project, user, filename, images_filename, parsed, new, existing, files, progress
) -> ImportBatch:
    batch = ImportBatch.objects.create(
        project=project,
        created_by=user,
        filename=filename[:255],
        images_filename=(images_filename or "")[:255],
        format=parsed.format,
        state=ImportBatch.State.DONE,
        records=parsed.total,
        created_items=len(new),
        duplicates=[{"id": key, "records": numbers} for key, numbers in parsed.duplicates.items()],
        existing=existing,
    )
    start = (Item.objects.filter(project=project).aggregate(m=Max("position"))["m"] or 0) + 1
    split_map = project.split_map or {}
    labelled = [r for r in new if r.labels is not None]
    # Items and reference labels share the last part of the bar by their number of rows.
    rows = max(len(new) + len(labelled), 1)
    _writing(progress, 0, rows, f"0 of {len(new):,} items")
    for first in range(0, len(new), WRITE_BATCH):
        chunk = new[first : first + WRITE_BATCH]
        Item.objects.bulk_create(
            (
                Item(
                    project=project,
                    external_id=record.id,
                    sentences=list(record.sentences),
                    image=files[record.id][0] if record.id in files else "",
                    image_url=record.image if "://" in record.image else "",
                    model=record.model,
                    dataset=record.dataset,
                    split=split_for(record.model, split_map),
                    position=start + first + offset,
                    import_batch=batch,
                )
                for offset, record in enumerate(chunk)
            ),
            batch_size=500,
        )
        _writing(
            progress, first + len(chunk), rows, f"{first + len(chunk):,} of {len(new):,} items"
        )
    if labelled:
        pks = dict(Item.objects.filter(import_batch=batch).values_list("external_id", "pk"))
        for first in range(0, len(labelled), WRITE_BATCH):
            chunk = labelled[first : first + WRITE_BATCH]
            ReferenceLabels.objects.bulk_create(
                (
                    ReferenceLabels(
                        item_id=pks[r.id], labels=[list(s) for s in r.labels], source=filename[:255]
                    )
                    for r in chunk
                ),
                batch_size=500,
            )
            _writing(
                progress,
                len(new) + first + len(chunk),
                rows,
                f"reference labels, {first + len(chunk):,} of {len(labelled):,}",
            )
    return batch


def _writing(progress: Progress, done: int, rows: int, what: str) -> None:
    share = done / rows
    progress(0.45 + 0.55 * share, f"Writing rows: {share:.0%} ({what})")
