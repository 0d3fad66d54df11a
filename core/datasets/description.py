"""A plain description of a dataset export, from which every metadata file is written.

Types are the Frictionless field types (string, integer, number, boolean, date,
datetime, array); the other formats map them to their own vocabularies.
"""

from __future__ import annotations

import hashlib
import mimetypes
from dataclasses import dataclass, field
from datetime import date
from fnmatch import fnmatch
from pathlib import PurePosixPath


@dataclass(frozen=True)
class Field:
    name: str
    type: str
    description: str
    unit: str = ""


@dataclass(frozen=True)
class DataFile:
    """One file of the export; a table when it has fields."""

    name: str
    path: str
    media_type: str
    description: str
    sha256: str
    size: int
    fields: tuple[Field, ...] = ()
    rows: int | None = None

    @property
    def is_table(self) -> bool:
        return bool(self.fields)


@dataclass(frozen=True)
class FileSet:
    """Many files of one kind (the chart images), matched by a glob."""

    name: str
    glob: str
    media_type: str
    description: str
    count: int
    # Each file with its hash and size (see :func:`file_set`): the data package, which has
    # no globs, lists them one by one.
    members: tuple[DataFile, ...] = ()


@dataclass(frozen=True)
class Config:
    """A Hugging Face configuration: a name and the files ``load_dataset`` reads for it."""

    name: str
    paths: tuple[str, ...]
    description: str
    default: bool = False


@dataclass(frozen=True)
class DatasetDescription:
    name: str
    title: str
    description: str
    license: str  # an SPDX id of core.datasets.licenses.LICENSES
    citation: str
    version: str
    date_created: date | None
    date_modified: date | None
    creators: tuple[str, ...]
    keywords: tuple[str, ...]
    files: tuple[DataFile, ...]
    filesets: tuple[FileSet, ...] = ()
    configs: tuple[Config, ...] = ()
    # Counts that characterise the data (participants included, sentences ...): name -> number.
    facts: dict[str, int] = field(default_factory=dict)
    # Croissant responsible-AI properties without the ``rai:`` prefix -> text.
    rai: dict[str, str] = field(default_factory=dict)
    task_categories: tuple[str, ...] = ()
    card_sections: tuple[tuple[str, str], ...] = ()
    url: str = ""
    # How an empty cell is read: the missing-value convention of every CSV.
    missing_values: tuple[str, ...] = ("",)


def data_file(
    *,
    name: str,
    path: str,
    content: bytes,
    media_type: str,
    description: str,
    fields: tuple[Field, ...] = (),
    rows: int | None = None,
) -> DataFile:
    """Describe a file from its bytes (the hash and size go into every metadata file)."""
    return DataFile(
        name=name,
        path=path,
        media_type=media_type,
        description=description,
        sha256=hashlib.sha256(content).hexdigest(),
        size=len(content),
        fields=fields,
        rows=rows,
    )


def file_set(
    *, name: str, glob: str, media_type: str, description: str, contents: dict[str, bytes]
) -> FileSet:
    """Describe the files of ``contents`` (path -> bytes) that ``glob`` matches, each by itself
    too. ``media_type`` is the set's; each file's is read from its extension when it can be."""
    members = tuple(
        data_file(
            name=f"{name}/{PurePosixPath(path).name}",
            path=path,
            content=content,
            media_type=mimetypes.guess_type(path)[0] or media_type,
            description=f"{description.rstrip('.')}: {PurePosixPath(path).name}.",
        )
        for path, content in contents.items()
        if fnmatch(path, glob)
    )
    return FileSet(name, glob, media_type, description, len(members), members)


def data_version(files: tuple[DataFile, ...] | list[DataFile], major: int = 1) -> str:
    """A semantic version whose build part names the data: the same data, the same version.

    A study or project has no release number of its own, so the version says which data
    it is (``1.0.0+data.<hash>``): a re-export of unchanged data repeats it exactly.
    """
    digest = hashlib.sha256()
    for f in sorted(files, key=lambda f: f.path):
        digest.update(f"{f.path}\0{f.sha256}\n".encode())
    return f"{major}.0.0+data.{digest.hexdigest()[:12]}"


def size_category(rows: int) -> str:
    """The Hugging Face card's size bucket for ``rows`` examples."""
    for limit, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K")):
        if rows < limit:
            return label
    if rows < 1_000_000:
        return "100K<n<1M"
    return "1M<n<10M"
