"""Importing caption files into a project: all records or none.

The whole file is checked first (records, labels, images); only a file without
problems is written, inside one transaction. Both passes read the file as a stream
(``CaptionReader``), so memory does not grow with the captions' text. Chart images
from a zip are stored under content-derived names as they are checked, so a file
written for an import that is then rejected is harmless and a re-import reuses it.

Large uploads run the same function in a background job (``import_jobs``), which passes
``progress`` to show how far it got and the files open rather than as bytes.
"""

from __future__ import annotations

import io
import time
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import BinaryIO

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.validators import URLValidator
from django.db import IntegrityError, transaction
from django.db.models import Max

from annotation.caption_formats import CaptionReader, Problem, Record
from annotation.defaults import split_for
from annotation.models import ImportBatch, Item, Project, ReferenceLabels
from annotation.sentences import split_sentences
from core.errors import ServiceError
from core.images import ImageRejected, generated_name, validate_image
from core.models import User

CHART_DIR = "annotation/charts"
# Items are written this many at a time, with a progress report after each batch.
WRITE_BATCH = 2000
_url = URLValidator(schemes=["http", "https"])

# progress(fraction from 0 to 1, message): how a job shows the stage it is in.
Progress = Callable[[float, str], None]


def _no_progress(fraction: float, message: str) -> None:
    pass


class ImportRejected(ServiceError, ValidationError):
    """The file has problems; ``problems`` lists each with its record and reason.

    Still a ValidationError (its field errors cut to 50), which the upload form shows.
    """

    status = 400
    code = "import_rejected"

    def __init__(self, problems: list[Problem], batch: ImportBatch | None = None):
        self.problems = problems
        self.batch = batch
        shown = [str(p) for p in problems[:50]]
        if len(problems) > 50:
            shown.append(f"... and {len(problems) - 50} more problems.")
        ValidationError.__init__(self, {"file": shown})
        count = len(problems)
        self.message = (
            f"Nothing was imported: {count} problem{'s' if count != 1 else ''} in the file."
        )
        self.errors = {"file": [str(p) for p in problems]}


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
        self.checked: dict[str, tuple[str, str]] = {}
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

    def get(self, reference: str) -> tuple[str, str]:
        """(storage name, "") of the checked and stored image, or ("", why it cannot be used).

        A good image is stored at once under a name derived from its content, and only that
        name is kept: the zip's images never all sit in memory.
        """
        base = PurePosixPath(reference.replace("\\", "/")).name
        entry = self.names.get(base) or self.names.get(base.lower())
        if self.archive is None:
            return "", (
                f"“{reference}” is a file name, but no zip of chart images was uploaded; "
                "upload the images as a zip or give http(s) URLs."
            )
        if entry is None:
            return "", f"“{base}” is not in the uploaded zip of images."
        if entry not in self.checked:
            self.checked[entry] = self._check(entry, base)
        return self.checked[entry]

    def _check(self, entry: str, base: str) -> tuple[str, str]:
        info = self.archive.getinfo(entry)
        limit = settings.CHARTROOM_MAX_IMAGE_BYTES
        if info.file_size > limit:
            return "", f"“{base}” is larger than {limit // (1024 * 1024)} MB."
        if info.flag_bits & 0x1:
            return "", f"“{base}” is encrypted in the zip; zip the images without a password."
        try:
            data = self.archive.read(entry)
        # Besides BadZipFile (bad CRC), zlib, bz2 and lzma each raise their own errors on
        # damaged data, and unsupported methods NotImplementedError (as the library's reader
        # says): a damaged entry was a 500.
        except Exception:
            return "", f"“{base}” is damaged in the zip and cannot be unpacked."
        try:
            image = validate_image(
                data,
                max_bytes=limit,
                max_pixels=settings.CHARTROOM_MAX_IMAGE_PIXELS,
            )
        except ImageRejected as exc:
            return "", f"“{base}” is not a usable image: {exc.message}"
        # Content-derived names: a file stored for an import that is then rejected is
        # harmless, and importing it again reuses it.
        name = f"{CHART_DIR}/{generated_name(image.data, image.extension)}"
        if not default_storage.exists(name):
            default_storage.save(name, ContentFile(image.data))
        return name, ""


def _image_problem(record: Record, images: _Images) -> Problem | None:
    ref = record.image
    if not ref:
        return None
    if "://" in ref or ref.lower().startswith(("data:", "javascript:", "mailto:")):
        try:
            _url(ref)
        except ValidationError:
            return Problem(
                record.number, record.id, "image_path", "image URLs must be complete http(s) URLs."
            )
        return None
    reason = images.get(ref)[1]
    return Problem(record.number, record.id, "image_path", reason) if reason else None


@dataclass
class _Checked:
    """What the checking pass learnt about a file, without keeping its records."""

    reader: CaptionReader
    new: int = 0
    labelled: int = 0
    existing: list[str] = field(default_factory=list)


def _reject(project, user, filename, images_filename, checked: _Checked, started) -> ImportRejected:
    problems = sorted(checked.reader.problems, key=lambda p: (p.record is not None, p.record or 0))
    batch = ImportBatch.objects.create(
        project=project,
        created_by=user,
        filename=filename[:255],
        images_filename=(images_filename or "")[:255],
        format=checked.reader.format,
        state=ImportBatch.State.REJECTED,
        records=checked.reader.total,
        problems=[p.as_dict() for p in problems],
        seconds=time.monotonic() - started,
    )
    return ImportRejected(problems, batch)


def captions_import(
    *,
    project: Project,
    data: bytes | BinaryIO,
    filename: str,
    user: User | None = None,
    images: bytes | BinaryIO | None = None,
    images_filename: str = "",
    format: str | None = None,
    progress: Progress | None = None,
) -> ImportResult:
    """Import every record of a caption file, or none (raising :class:`ImportRejected`).

    ``data`` (the caption file) and ``images`` (a zip of chart images) are bytes or open,
    seekable binary files. The file is read twice as a stream, once to check every record
    and once to write them, so memory stays small however many captions it holds.
    """
    started = time.monotonic()
    progress = progress or _no_progress
    source = io.BytesIO(data) if isinstance(data, bytes | bytearray) else data
    too_large = upload_limit_problem(upload_size(source) + upload_size(images))
    if too_large:
        raise ImportRejected([too_large])
    keys = project.category_keys()
    zipped = _Images(images)

    def reader() -> CaptionReader:
        source.seek(0)
        return CaptionReader(
            source, filename, category_keys=keys, split=split_sentences, format=format
        )

    checked = _check(project, reader(), zipped, upload_size(source), progress)
    if checked.reader.problems:
        raise _reject(project, user, filename, images_filename, checked, started)
    try:
        batch = _write(
            project, user, filename, images_filename, checked, reader(), zipped, progress,
        )  # fmt: skip
    except IntegrityError:
        # Another import into this project added some of the same ids meanwhile.
        checked.reader.problems[:] = [
            Problem(
                None,
                "",
                "_id",
                "another import added some of these ids at the same time; import again.",
            )
        ]
        raise _reject(project, user, filename, images_filename, checked, started) from None
    batch.seconds = time.monotonic() - started
    batch.save(update_fields=["seconds"])
    return ImportResult(
        batch=batch,
        created=checked.new,
        duplicates=checked.reader.duplicates,
        existing=checked.existing,
        seconds=batch.seconds,
    )


def _batches(records: Iterator[Record]) -> Iterator[list[Record]]:
    """The records in lists of WRITE_BATCH."""
    batch = []
    for record in records:
        batch.append(record)
        if len(batch) >= WRITE_BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


def _existing_ids(project: Project, records: list[Record]) -> set[str]:
    """Which of these records' ids the project has: asked a batch at a time, so a project
    of a million items never has all its ids in memory."""
    ids = [record.id for record in records]
    found = Item.objects.filter(project=project, external_id__in=ids)
    return set(found.values_list("external_id", flat=True))


def _check(
    project: Project, reader: CaptionReader, zipped: _Images, size: int, progress: Progress
) -> _Checked:
    """The first pass: every record checked (its images too), nothing kept but counts."""
    checked = _Checked(reader=reader)
    if zipped.problem:
        reader.problems.append(Problem(None, "", "images", zipped.problem))
    progress(0.0, "Checking the caption file")
    count = 0
    for batch in _batches(reader.records()):
        existing = _existing_ids(project, batch)
        for record in batch:
            count += 1
            if count % 1000 == 0:
                share = min(reader.source.tell() / max(size, 1), 1.0)
                progress(0.4 * share, f"Checking the caption file: {count:,} records read")
            problem = _image_problem(record, zipped)
            if problem:
                reader.problems.append(problem)
            elif record.id in existing:
                checked.existing.append(record.id)
            else:
                checked.new += 1
                checked.labelled += record.labels is not None
    return checked


@transaction.atomic
def _write(
    project, user, filename, images_filename, checked: _Checked, reader: CaptionReader, zipped,
    progress,
) -> ImportBatch:  # fmt: skip
    """The second pass: the checked file again, written a batch of rows at a time."""
    batch = ImportBatch.objects.create(
        project=project,
        created_by=user,
        filename=filename[:255],
        images_filename=(images_filename or "")[:255],
        format=checked.reader.format,
        state=ImportBatch.State.DONE,
        records=checked.reader.total,
        created_items=checked.new,
        duplicates=[
            {"id": key, "records": numbers} for key, numbers in checked.reader.duplicates.items()
        ],
        existing=checked.existing,
    )
    start = (Item.objects.filter(project=project).aggregate(m=Max("position"))["m"] or 0) + 1
    # Items and reference labels share the last part of the bar by their number of rows.
    writer = _Writer(project, batch, filename, zipped, start, progress)
    writer.rows = max(checked.new + checked.labelled, 1)
    writer.total = checked.new
    writer.report()
    # The check found the repeats: this pass needs no memory of the ids it has read.
    repeats = {n for numbers in checked.reader.duplicates.values() for n in numbers[1:]}
    for records in _batches(reader.records(repeats=repeats)):
        existing = _existing_ids(project, records)
        new = [record for record in records if record.id not in existing]
        if new:
            writer.write(new)
    if writer.items != checked.new:
        # Another import added some of these ids between the check and now: roll back.
        raise IntegrityError("ids added by another import during this one")
    return batch


class _Writer:
    """Writes records as items (and their reference labels) in batches, reporting progress."""

    def __init__(self, project, batch, filename, zipped, start, progress):
        self.project = project
        self.batch = batch
        self.source = filename[:255]
        self.zipped = zipped
        self.position = start
        self.progress = progress
        self.split_map = project.split_map or {}
        self.rows = self.total = self.items = self.done = 0

    def write(self, records: list[Record]) -> None:
        items = Item.objects.bulk_create(
            [
                Item(
                    project=self.project,
                    external_id=record.id,
                    sentences=list(record.sentences),
                    image=self._stored_image(record),
                    image_url=record.image if "://" in record.image else "",
                    model=record.model,
                    dataset=record.dataset,
                    split=split_for(record.model, self.split_map),
                    position=self.position + offset,
                    import_batch=self.batch,
                )
                for offset, record in enumerate(records)
            ],
            batch_size=500,
        )
        labels = [
            ReferenceLabels(
                item_id=item.pk, labels=[list(s) for s in record.labels], source=self.source
            )
            for item, record in zip(items, records, strict=True)
            if record.labels is not None
        ]
        ReferenceLabels.objects.bulk_create(labels, batch_size=500)
        self.position += len(records)
        self.items += len(records)
        self.done += len(records) + len(labels)
        # Saving gave each item an image field that refers back to the item: a cycle that
        # only the (rare, full) cycle collection would free, so every batch's items would
        # pile up over a 100,000-caption file. Breaking it lets each batch go at once.
        for item in items:
            item.__dict__.pop("image", None)
        self.report()

    def _stored_image(self, record: Record) -> str:
        if not record.image or "://" in record.image:
            return ""
        return self.zipped.get(record.image)[0]

    def report(self) -> None:
        share = self.done / self.rows
        self.progress(
            0.45 + 0.55 * share,
            f"Writing rows: {share:.0%} ({self.items:,} of {self.total:,} items)",
        )
