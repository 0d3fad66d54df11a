"""The files of a benchmark, from a folder or a zip archive, read within size limits.

Both sources refuse what could escape the benchmark (absolute paths, "..", symbolic links),
skip the junk operating systems add (__MACOSX, .DS_Store, ...) and read no file past the
size limits, so an upload cannot make the server unpack more than they allow.
"""

from __future__ import annotations

import os
import re
import stat
import zipfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from studies.images import human_size

from .records import Problem

_JUNK = re.compile(r"(^|/)(__MACOSX|\.DS_Store|Thumbs\.db|desktop\.ini|\._[^/]*)(/|$)", re.I)

DEFAULT_MAX_TEXT_BYTES = 2 * 1024 * 1024
DEFAULT_MAX_ENTRIES = 5000
DEFAULT_MAX_TOTAL_BYTES = 512 * 1024 * 1024


@dataclass(frozen=True)
class _Limits:
    max_image_bytes: int
    max_image_pixels: int
    max_text_bytes: int
    max_entries: int
    max_total_bytes: int

    @property
    def max_entry_bytes(self) -> int:
        return max(self.max_image_bytes, self.max_text_bytes)


class _ReadError(Exception):
    def __init__(self, message: str, size: int | None = None):
        super().__init__(message)
        self.message = message
        self.size = size


class _Source:
    """Files of a benchmark, addressed by POSIX paths relative to ``base``."""

    label = ""
    base = ""
    unusable = False  # set when the whole source was refused and already reported

    def full(self, rel: str) -> str:
        return f"{self.base}/{rel}" if self.base else rel

    def listdir(self, rel: str) -> list[str] | None:
        raise NotImplementedError

    def read(self, rel: str, limit: int) -> bytes:
        raise NotImplementedError

    def find(self, rel: str) -> str | None:
        """The stored spelling of ``rel``, matched case-insensitively, if it exists as a file."""
        found = ""
        parts = [p for p in rel.split("/") if p]
        for i, part in enumerate(parts):
            entries = self.listdir(found)
            if entries is None:
                return None
            # Intermediate parts must be folders; the last may be a file or a folder.
            wanted = {part + "/"} if i < len(parts) - 1 else {part, part + "/"}
            match = next((e for e in entries if e in wanted), None) or next(
                (e for e in entries if e.casefold() in {w.casefold() for w in wanted}), None
            )
            if match is None:
                return None
            found = f"{found}/{match.rstrip('/')}" if found else match.rstrip("/")
        return found or None


class _ZipSource(_Source):
    def __init__(self, zf: zipfile.ZipFile, label: str, problems: list[Problem], limits: _Limits):
        self.zf = zf
        self.label = label
        self.limits = limits
        self.files: dict[str, zipfile.ZipInfo] = {}
        self.dirs: dict[str, set[str]] = defaultdict(set)
        self.total_read = 0

        infos = zf.infolist()
        if len(infos) > limits.max_entries:
            problems.append(
                Problem(
                    label,
                    None,
                    f"The archive has {len(infos):,} entries; "
                    f"at most {limits.max_entries:,} are accepted.",
                )
            )
            self.unusable = True
            return
        declared = sum(i.file_size for i in infos)
        if declared > limits.max_total_bytes:
            problems.append(
                Problem(
                    label,
                    None,
                    f"The archive unpacks to {human_size(declared)}; "
                    f"at most {human_size(limits.max_total_bytes)} is accepted.",
                )
            )
            self.unusable = True
            return
        seen: dict[str, str] = {}
        for info in infos:
            name = info.filename.replace("\\", "/")
            complaint = self._entry_problem(info, name)
            if complaint:
                problems.append(Problem(info.filename, None, complaint))
                continue
            if info.is_dir() or _JUNK.search(name):
                continue
            if info.file_size > limits.max_entry_bytes:
                problems.append(
                    Problem(
                        name,
                        None,
                        f"This entry unpacks to {human_size(info.file_size)}; at most "
                        f"{human_size(limits.max_entry_bytes)} per file is accepted.",
                    )
                )
                continue
            name = name.strip("/")
            if name.casefold() in seen:
                problems.append(
                    Problem(
                        name,
                        None,
                        f"The archive holds this file twice (also as {seen[name.casefold()]}).",
                    )
                )
                continue
            seen[name.casefold()] = name
            self.files[name] = info
            parts = name.split("/")
            for depth in range(len(parts)):
                parent = "/".join(parts[:depth])
                child = parts[depth] + ("/" if depth < len(parts) - 1 else "")
                self.dirs[parent].add(child)

    @staticmethod
    def _entry_problem(info: zipfile.ZipInfo, name: str) -> str | None:
        if name.startswith("/") or re.match(r"^[A-Za-z]:", name):
            return "Absolute paths are not allowed in the archive; zip the benchmark folder itself."
        if ".." in name.split("/"):
            return "This entry points outside the benchmark folder (it contains '..')."
        if stat.S_ISLNK(info.external_attr >> 16):
            return "Symbolic links are not allowed in the archive; include the file itself."
        if info.flag_bits & 0x1:
            return "Encrypted entries cannot be read; zip the benchmark without a password."
        return None

    def listdir(self, rel: str) -> list[str] | None:
        key = self.full(rel).strip("/")
        if key not in self.dirs:
            return None
        return sorted(self.dirs[key])

    def read(self, rel: str, limit: int) -> bytes:
        info = self.files.get(self.full(rel))
        if info is None:
            raise _ReadError("The file is missing.")
        if info.file_size > limit:
            raise _ReadError("too large", size=info.file_size)
        if self.total_read + info.file_size > self.limits.max_total_bytes:
            raise _ReadError(
                f"The archive unpacks to more than {human_size(self.limits.max_total_bytes)}."
            )
        try:
            with self.zf.open(info) as handle:
                data = handle.read(limit + 1)
        # Besides BadZipFile (bad CRC), zlib, bz2 and lzma each raise their own
        # errors on damaged data, and unsupported methods raise NotImplementedError.
        except Exception:
            raise _ReadError(
                "This entry of the archive is damaged and cannot be unpacked."
            ) from None
        if len(data) > limit:
            raise _ReadError("too large", size=len(data))
        self.total_read += len(data)
        return data


class _DirSource(_Source):
    def __init__(self, root: Path, problems: list[Problem], limits: _Limits):
        self.root = root
        self.label = str(root)
        self.problems = problems
        self.limits = limits
        self._reported: set[str] = set()

    def _report_link(self, rel: str) -> None:
        if rel not in self._reported:
            self._reported.add(rel)
            self.problems.append(
                Problem(
                    rel,
                    None,
                    "Symbolic links are not followed; copy the file itself into the folder.",
                )
            )

    def listdir(self, rel: str) -> list[str] | None:
        key = self.full(rel).strip("/")
        path = self.root / key if key else self.root
        if self._has_link(key) or not path.is_dir():
            return None
        entries = []
        try:
            with os.scandir(path) as it:
                for count, entry in enumerate(it):
                    if count >= self.limits.max_entries:
                        self.problems.append(
                            Problem(
                                key or ".", None, f"More than {self.limits.max_entries:,} files."
                            )
                        )
                        break
                    rel_entry = f"{key}/{entry.name}" if key else entry.name
                    if _JUNK.search(rel_entry):
                        continue
                    if entry.is_symlink():
                        self._report_link(rel_entry)
                        continue
                    entries.append(entry.name + "/" if entry.is_dir() else entry.name)
        except OSError:
            return None
        return sorted(entries)

    def _has_link(self, key: str) -> bool:
        path = self.root
        for part in [p for p in key.split("/") if p]:
            path = path / part
            if path.is_symlink():
                self._report_link(key)
                return True
        return False

    def read(self, rel: str, limit: int) -> bytes:
        key = self.full(rel)
        if self._has_link(key):
            raise _ReadError(
                "Symbolic links are not followed; copy the file itself into the folder."
            )
        path = self.root / key
        try:
            info = path.stat()
            if not stat.S_ISREG(info.st_mode):
                raise _ReadError("This is not a regular file.")
            if info.st_size > limit:
                raise _ReadError("too large", size=info.st_size)
            with path.open("rb") as handle:
                data = handle.read(limit + 1)
        except FileNotFoundError:
            raise _ReadError("The file is missing.") from None
        except OSError as exc:
            raise _ReadError(f"The file cannot be read ({exc.strerror or exc}).") from None
        if len(data) > limit:
            raise _ReadError("too large", size=len(data))
        return data
