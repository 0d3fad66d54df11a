"""Importing caption files into a project: all records or none.

The whole file is read and checked first (records, labels, images); only a file
without problems is written, inside one transaction. Chart images from a zip are
stored under content-derived names, so a file written for an import that is then
rejected is harmless and a re-import reuses it.
"""

from __future__ import annotations

import time
import zipfile
from dataclasses import dataclass
from pathlib import PurePosixPath

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
_url = URLValidator(schemes=["http", "https"])


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


class _Images:
    """Chart files of an uploaded zip, found by file name, each checked once."""

    def __init__(self, data: bytes | None):
        self.archive = None
        self.names: dict[str, str] = {}
        self.checked: dict[str, tuple[str, bytes] | str] = {}
        self.problem = ""
        if data is None:
            return
        try:
            import io

            self.archive = zipfile.ZipFile(io.BytesIO(data))
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


def _image_problems(records: list[Record], images: _Images) -> tuple[list[Problem], dict]:
    problems, files = [], {}
    for record in records:
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
    images: bytes | None = None,
    images_filename: str = "",
    format: str | None = None,
) -> ImportResult:
    """Import every record of a caption file, or none (raising :class:`ImportRejected`)."""
    started = time.monotonic()
    limit = settings.CHARTROOM_MAX_UPLOAD_BYTES
    if len(data) + len(images or b"") > limit:
        raise ImportRejected(
            [
                Problem(
                    None, "", "file", f"Uploads are limited to {limit // (1024 * 1024)} MB in all."
                )
            ]
        )
    keys = list(project.categories.order_by("position", "pk").values_list("key", flat=True))
    parsed = parse_captions(
        data, filename, category_keys=keys, split=split_sentences, format=format
    )
    problems = list(parsed.problems)
    zipped = _Images(images)
    if zipped.problem:
        problems.append(Problem(None, "", "images", zipped.problem))
    image_problems, files = _image_problems(parsed.records, zipped)
    problems.extend(image_problems)
    if problems:
        problems.sort(key=lambda p: (p.record is not None, p.record or 0))
        raise _reject(project, user, filename, images_filename, parsed, problems, started)

    existing_ids = set(Item.objects.filter(project=project).values_list("external_id", flat=True))
    new = [r for r in parsed.records if r.id not in existing_ids]
    existing = [r.id for r in parsed.records if r.id in existing_ids]
    for name, content in dict(files.values()).items():
        if not default_storage.exists(name):
            default_storage.save(name, ContentFile(content))

    try:
        batch = _write(project, user, filename, images_filename, parsed, new, existing, files)
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
def _write(project, user, filename, images_filename, parsed, new, existing, files) -> ImportBatch:
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
    items = []
    for offset, record in enumerate(new):
        is_url = "://" in record.image
        items.append(
            Item(
                project=project,
                external_id=record.id,
                sentences=list(record.sentences),
                image=files[record.id][0] if record.id in files else "",
                image_url=record.image if is_url else "",
                model=record.model,
                dataset=record.dataset,
                split=split_for(record.model, split_map),
                position=start + offset,
                import_batch=batch,
            )
        )
    Item.objects.bulk_create(items, batch_size=500)
    if any(r.labels is not None for r in new):
        pks = dict(Item.objects.filter(import_batch=batch).values_list("external_id", "pk"))
        ReferenceLabels.objects.bulk_create(
            (
                ReferenceLabels(
                    item_id=pks[r.id], labels=[list(s) for s in r.labels], source=filename[:255]
                )
                for r in new
                if r.labels is not None
            ),
            batch_size=500,
        )
    return batch
