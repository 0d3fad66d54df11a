"""Reading and writing chart benchmarks in the released CHARTOM layout.

The layout (CHARTOM, section 3)::

    chart_images/<chart id>.png        one image per chart
    FACT_questions/<chart id>.txt      the FACT question; a multiple-choice
                                       question lists numbered options in its text
    FACT_answer_keys.csv               chart id, answer type, answer (a row per chart)
    chart_manipulations.csv            chart id, chart type, planted manipulation

Chart ids are ``G<group>_Q<question>_<1|2>``: ``_1`` is the non-manipulated and
``_2`` the manipulated version of the same data, and every question needs both.
``chart_manipulations.csv`` usually has one row per group for the manipulated
version, written ``G7_*_2``; a row for one chart (``G7_Q1_2``) overrides it,
and the ``_1`` charts take their chart type from it unless a ``_1`` row says
otherwise. Researchers' own sets may instead use a manifest (``manifest.csv``
or ``manifest.json``, or a path to such a file) with one row per chart:
chart_id, chart_type, manipulation, question, answer_type, answer, image.

Reading never stops at the first problem: a benchmark is imported whole or not
at all, so the researcher gets every problem at once. Row numbers count the
header as row 1, as a spreadsheet shows them (for a JSON manifest, the row is
the chart's position in the list, from 1).

Text files are decoded as UTF-8 (with or without a byte-order mark), as UTF-16
or UTF-32 when they start with that byte-order mark, and otherwise as cp1252,
which is what spreadsheet programs on Windows write by default.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import os
import re
import stat
import unicodedata
import zipfile
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from studies.answers import (
    ANSWER_TYPE_LABELS,
    FREE_TEXT,
    MULTIPLE_CHOICE,
    RANKING,
    KeyFormatError,
    normalize_key,
    normalize_line_breaks,
    parse_options,
    question_stem,
)
from studies.images import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_PIXELS,
    IMAGE_EXTENSIONS,
    ImageRejected,
    ValidatedImage,
    human_size,
    validate_image,
)
from studies.manipulations import BUILTIN as BUILTIN_MANIPULATIONS
from studies.manipulations import slugify_manipulation

KEYS_FILE = "FACT_answer_keys.csv"
MANIPULATIONS_FILE = "chart_manipulations.csv"
QUESTIONS_DIR = "FACT_questions"
IMAGES_DIR = "chart_images"
MANIFEST_NAMES = ("manifest.csv", "manifest.json")

CHART_TYPES = ("line", "bar", "scatter", "pie", "map")

# Table 1 of the paper, slug -> label, shared with the chart generator so
# imported and generated charts use the same slugs.
KNOWN_MANIPULATIONS = {m.slug: m.label for m in BUILTIN_MANIPULATIONS}

# Names the paper itself uses in section 5 besides those of Table 1.
_EXTRA_MANIPULATION_NAMES = {"manipulated_x_axis": "inconsistent_x_axis"}

_ANSWER_TYPE_NAMES = {
    "multiple choice": MULTIPLE_CHOICE,
    "free text": FREE_TEXT,
    "free text entry": FREE_TEXT,
    "rank": RANKING,
    "ranking": RANKING,
}

_CHART_ID = re.compile(r"G0*(?P<g>\d{1,4})_Q0*(?P<q>\d{1,4})_(?P<v>[12])", re.IGNORECASE)
_MANIPULATION_ID = re.compile(
    r"G0*(?P<g>\d{1,4})_(?:\*|Q0*(?P<q>\d{1,4}))_(?P<v>[12])", re.IGNORECASE
)
_JUNK = re.compile(r"(^|/)(__MACOSX|\.DS_Store|Thumbs\.db|desktop\.ini|\._[^/]*)(/|$)", re.I)

DEFAULT_MAX_TEXT_BYTES = 2 * 1024 * 1024
DEFAULT_MAX_ENTRIES = 5000
DEFAULT_MAX_TOTAL_BYTES = 512 * 1024 * 1024


# ----------------------------------------------------------------------- records


@dataclass(frozen=True)
class Problem:
    """Something that stops an import; ``row`` is None when no row applies."""

    file: str
    row: int | None
    message: str

    def __str__(self) -> str:
        where = f"{self.file}, row {self.row}" if self.row is not None else self.file
        return f"{where}: {self.message}"


@dataclass(frozen=True)
class ChartRecord:
    """One chart with its FACT question and answer key.

    ``answer_key`` is the key as written; ``answer_value`` its checked form:
    an option index (0-based) for multiple choice, a number for free text, the
    items in order for a ranking. Checking free text should use the written
    key, which keeps its scale word (see ``studies.answers.check_free_text``).
    """

    chart_id: str
    group: str
    question_id: str
    version: int
    chart_type: str
    manipulation: str
    manipulation_label: str
    answer_type: str
    question_text: str
    question: str
    options: list[str]
    answer_key: str
    answer_value: int | float | list[str]
    image: ValidatedImage

    @property
    def manipulated(self) -> bool:
        return self.version == 2


@dataclass
class Benchmark:
    """The valid charts, in id order, and every problem found; import only when ``ok``."""

    charts: list[ChartRecord] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass(frozen=True)
class ChartId:
    group: int
    question: int
    version: int

    def __str__(self) -> str:
        return f"G{self.group}_Q{self.question}_{self.version}"

    @property
    def group_id(self) -> str:
        return f"G{self.group}"

    @property
    def question_id(self) -> str:
        return f"G{self.group}_Q{self.question}"

    @property
    def partner(self) -> ChartId:
        return ChartId(self.group, self.question, 3 - self.version)


def parse_chart_id(text: str) -> ChartId | None:
    """``G7_Q1_2`` -> ChartId(7, 1, 2); case and stray spaces are tolerated, else None."""
    match = _CHART_ID.fullmatch(re.sub(r"\s+", "", str(text)))
    if not match:
        return None
    return ChartId(int(match["g"]), int(match["q"]), int(match["v"]))


def _sort_key(chart_id: ChartId) -> tuple[int, int, int]:
    return (chart_id.group, chart_id.question, chart_id.version)


# ----------------------------------------------------------------- normalisation


def _slugify(text: str) -> str:
    text = unicodedata.normalize("NFKC", str(text)).casefold().replace("&", " and ")
    return re.sub(r"[\W_]+", "_", text).strip("_")


def manipulation_slug(name: str, chart_type: str | None = None) -> str:
    """Slug for a manipulation name: "truncated y-axis" -> "truncated_y_axis".

    Known names and their usual spellings map to the slugs of
    ``KNOWN_MANIPULATIONS``; an empty name is "none"; unknown names keep a
    slug of their own, so researchers can add manipulations.
    """
    written = " ".join(str(name).split())
    slug = slugify_manipulation(written) if written else "none"
    slug = _EXTRA_MANIPULATION_NAMES.get(slug, slug)
    # The released file writes plain "3D effect" for both the bar group and
    # the pie group; only the chart type tells them apart.
    if slug == "bar_3d" and chart_type == "pie" and "bar" not in written.casefold():
        slug = "pie_3d"
    return slug


def manipulation_label(slug: str, written: str = "") -> str:
    """Display name: the known label, else the name as written (spacing tidied)."""
    return KNOWN_MANIPULATIONS.get(slug) or " ".join(str(written).split()) or slug


def chart_type_slug(text: str) -> str | None:
    """One of CHART_TYPES ("Bar chart", "scatter plot" are accepted), else None."""
    words = _slugify(text).replace("_", " ")
    words = re.sub(r"\s*\b(chart|plot|graph)s?$", "", words).replace(" ", "")
    words = {"scatterplot": "scatter", "choropleth": "map"}.get(words, words)
    return words if words in CHART_TYPES else None


def answer_type_from_label(text: str) -> str | None:
    """The answer-type constant for "multiple choice", "free text" or "rank"; None if unknown."""
    words = " ".join(re.sub(r"[_\-]+", " ", str(text)).casefold().split())
    return _ANSWER_TYPE_NAMES.get(words)


def _column(name: str) -> str:
    return re.sub(r"[\s_\-]+", "_", str(name).strip().lstrip("\ufeff").casefold()).strip("_")


_CHARTOM_COLUMNS = {
    "id": "chart_id",
    "chartid": "chart_id",
    "manipulation": "planted_manipulation",
    "manipulation_type": "planted_manipulation",
    "answer_key": "answer",
}
_MANIFEST_COLUMNS = {
    "id": "chart_id",
    "chartid": "chart_id",
    "planted_manipulation": "manipulation",
    "manipulation_type": "manipulation",
    "answer_key": "answer",
    "question_text": "question",
    "image_path": "image",
}
_MANIFEST_FIELDS = (
    "chart_id",
    "chart_type",
    "manipulation",
    "question",
    "answer_type",
    "answer",
    "image",
)


def _tidy_question(text: str) -> str:
    text = normalize_line_breaks(text).strip()
    return "\n".join(line.rstrip() for line in text.split("\n"))


def decode_text(data: bytes) -> str:
    """Decode a text file as described in the module docstring; ValueError if impossible."""
    for bom, encoding in (
        (codecs.BOM_UTF8, "utf-8-sig"),
        (codecs.BOM_UTF32_LE, "utf-32"),
        (codecs.BOM_UTF32_BE, "utf-32"),
        (codecs.BOM_UTF16_LE, "utf-16"),
        (codecs.BOM_UTF16_BE, "utf-16"),
    ):
        if data.startswith(bom):
            try:
                return data.decode(encoding)
            except UnicodeDecodeError:
                raise ValueError(
                    f"the file starts as {encoding} but is not valid {encoding}"
                ) from None
    if b"\x00" in data:
        # Without a byte-order mark, NUL bytes mean UTF-16/32 that cp1252 would garble.
        raise ValueError("the file looks like UTF-16 without a byte-order mark; save it as UTF-8")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("cp1252")
    except UnicodeDecodeError:
        raise ValueError(
            "the file is neither UTF-8, UTF-16 nor cp1252 text; save it as UTF-8"
        ) from None


# ----------------------------------------------------------------------- sources


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


# ------------------------------------------------------------------------ drafts


@dataclass
class _Draft:
    """What the files say about one chart; None marks a part already reported as a problem."""

    chart_id: ChartId
    key_file: str
    key_row: int | None
    chart_type: str | None = None
    manipulation: str | None = None
    manipulation_label: str | None = None
    answer_type: str | None = None
    answer: str | None = None
    question_text: str | None = None
    image: ValidatedImage | None = None


class _Reader:
    def __init__(self, source: _Source, problems: list[Problem], limits: _Limits):
        self.source = source
        self.problems = problems
        self.limits = limits

    def problem(self, rel: str, row: int | None, message: str) -> None:
        self.problems.append(
            Problem(self.source.full(rel) if rel else self.source.label, row, message)
        )

    # -- files

    def read_text(self, rel: str) -> str | None:
        try:
            data = self.source.read(rel, self.limits.max_text_bytes)
        except _ReadError as exc:
            if exc.size is not None:
                self.problem(
                    rel,
                    None,
                    f"The file is {human_size(exc.size)}; text files may be at most "
                    f"{human_size(self.limits.max_text_bytes)}.",
                )
            else:
                self.problem(rel, None, exc.message)
            return None
        try:
            return decode_text(data)
        except ValueError as exc:
            self.problem(rel, None, f"Cannot read the text: {exc}.")
            return None

    def read_image(self, rel: str) -> ValidatedImage | None:
        try:
            data = self.source.read(rel, self.limits.max_image_bytes)
        except _ReadError as exc:
            if exc.size is not None:
                self.problem(
                    rel,
                    None,
                    f"The image is {human_size(exc.size)}; "
                    f"the limit is {human_size(self.limits.max_image_bytes)}. "
                    "Please save it smaller.",
                )
            else:
                self.problem(rel, None, exc.message)
            return None
        try:
            return validate_image(
                data,
                max_bytes=self.limits.max_image_bytes,
                max_pixels=self.limits.max_image_pixels,
            )
        except ImageRejected as exc:
            self.problem(rel, None, exc.message)
            return None

    def read_table(
        self, rel: str, required: Iterable[str], aliases: dict[str, str]
    ) -> list[tuple[int, dict[str, str]]] | None:
        """Rows of a CSV file as (row number, {column: stripped value}); None if unusable."""
        text = self.read_text(rel)
        if text is None:
            return None
        first_line = text.lstrip("\ufeff").split("\n", 1)[0]
        delimiter = max((",", ";", "\t"), key=first_line.count)
        try:
            rows = list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter))
        except csv.Error as exc:
            self.problem(rel, None, f"The file is not valid CSV ({exc}).")
            return None
        if not rows:
            self.problem(
                rel, None, "The file is empty; it needs a header row and one row per chart."
            )
            return None
        header = [aliases.get(_column(h), _column(h)) for h in rows[0]]
        missing = [c for c in required if c not in header]
        if missing:
            wanted = ", ".join(c.replace("_", " ") for c in missing)
            found = ", ".join(h for h in rows[0] if h.strip()) or "nothing"
            self.problem(rel, 1, f"Missing column(s): {wanted} (the header has: {found}).")
            return None
        table = []
        for number, cells in enumerate(rows[1:], start=2):
            if not any(c.strip() for c in cells):
                continue
            record = {}
            for name, value in zip(header, cells, strict=False):
                record.setdefault(name, value.strip())
            for name in required:
                record.setdefault(name, "")
            table.append((number, record))
        return table

    # -- shared checks

    def build(
        self, drafts: dict[ChartId, _Draft], where: dict[ChartId, tuple[str, int | None]]
    ) -> list[ChartRecord]:
        for chart_id in sorted(drafts, key=_sort_key):
            if chart_id.partner not in drafts:
                file, row = where[chart_id]
                self.problem(
                    file,
                    row,
                    f"{chart_id} has no partner {chart_id.partner}; every question needs its "
                    "non-manipulated (_1) and manipulated (_2) chart.",
                )
        charts = []
        for chart_id in sorted(drafts, key=_sort_key):
            record = self.build_one(drafts[chart_id])
            if record is not None:
                charts.append(record)
        return charts

    def build_one(self, draft: _Draft) -> ChartRecord | None:
        parts = (
            draft.chart_type,
            draft.manipulation,
            draft.answer_type,
            draft.answer,
            draft.question_text,
            draft.image,
        )
        if any(p is None for p in parts):
            return None
        chart_id = draft.chart_id
        options = parse_options(draft.question_text) if draft.answer_type == MULTIPLE_CHOICE else []
        try:
            value = normalize_key(draft.answer_type, draft.answer, options=options)
        except KeyFormatError as exc:
            self.problem(draft.key_file, draft.key_row, f"{chart_id}: {exc.message}")
            return None
        return ChartRecord(
            chart_id=str(chart_id),
            group=chart_id.group_id,
            question_id=chart_id.question_id,
            version=chart_id.version,
            chart_type=draft.chart_type,
            manipulation=draft.manipulation,
            manipulation_label=draft.manipulation_label,
            answer_type=draft.answer_type,
            question_text=draft.question_text,
            question=question_stem(draft.question_text),
            options=options,
            answer_key=draft.answer,
            answer_value=value,
            image=draft.image,
        )

    def answer_type(self, rel: str, row: int, chart_id: ChartId, text: str) -> str | None:
        answer_type = answer_type_from_label(text)
        if answer_type is None:
            self.problem(
                rel,
                row,
                f"{chart_id}: unknown answer type {text!r}; "
                "use multiple choice, free text or rank.",
            )
        return answer_type

    def chart_type(self, rel: str, row: int, text: str) -> str | None:
        chart_type = chart_type_slug(text)
        if chart_type is None:
            self.problem(
                rel, row, f"Unknown chart type {text!r}; use one of: {', '.join(CHART_TYPES)}."
            )
        return chart_type

    def question(self, rel: str) -> str | None:
        text = self.read_text(rel)
        if text is None:
            return None
        text = _tidy_question(text)
        if not text:
            self.problem(rel, None, "The question file is empty.")
            return None
        return text

    # -- CHARTOM layout

    def read_chartom(self) -> list[ChartRecord]:
        src = self.source
        keys_rel = src.find(KEYS_FILE)
        manip_rel = src.find(MANIPULATIONS_FILE)
        if keys_rel is None:
            self.problem(
                KEYS_FILE, None, "This file is missing; it lists every chart's answer type and key."
            )
        if manip_rel is None:
            self.problem(
                MANIPULATIONS_FILE,
                None,
                "This file is missing; it gives each group's chart type and manipulation.",
            )

        questions = self.list_charts(QUESTIONS_DIR, {"txt"}, "question file")
        images = self.list_charts(IMAGES_DIR, IMAGE_EXTENSIONS, "image")

        drafts: dict[ChartId, _Draft] = {}
        where: dict[ChartId, tuple[str, int | None]] = {}
        keys_file = keys_rel or KEYS_FILE
        key_rows = (
            self.read_table(keys_rel, ("chart_id", "answer_type", "answer"), _CHARTOM_COLUMNS)
            if keys_rel
            else None
        )
        first_row: dict[ChartId, int] = {}
        for row, record in key_rows or []:
            chart_id = parse_chart_id(record["chart_id"])
            if chart_id is None:
                self.problem(keys_file, row, self.naming_message(record["chart_id"]))
                continue
            if chart_id in first_row:
                self.problem(
                    keys_file,
                    row,
                    f"{chart_id} is listed again (first in row {first_row[chart_id]}).",
                )
                continue
            first_row[chart_id] = row
            draft = _Draft(chart_id, keys_file, row)
            draft.answer_type = self.answer_type(keys_file, row, chart_id, record["answer_type"])
            draft.answer = record["answer"]
            if not draft.answer:
                self.problem(keys_file, row, f"{chart_id}: the answer is empty.")
                draft.answer = None
            drafts[chart_id] = draft
            where[chart_id] = (keys_file, row)

        # A missing file or folder is reported once above, not again for every chart.
        every_id = set(drafts) | set(questions or {}) | set(images or {})
        for chart_id in sorted(every_id, key=_sort_key):
            if chart_id not in drafts:
                if key_rows is not None:
                    self.problem(
                        keys_file, None, f"No answer key for {chart_id}; add a row for it."
                    )
                drafts[chart_id] = _Draft(chart_id, keys_file, None)
                found_in = (questions or {}).get(chart_id) or (images or {}).get(chart_id)
                where[chart_id] = (found_in, None)
            draft = drafts[chart_id]
            if questions is not None:
                if chart_id in questions:
                    draft.question_text = self.question(questions[chart_id])
                else:
                    self.problem(
                        f"{QUESTIONS_DIR}/{chart_id}.txt",
                        None,
                        f"The question file for {chart_id} is missing.",
                    )
            if images is not None:
                if chart_id in images:
                    draft.image = self.read_image(images[chart_id])
                else:
                    self.problem(
                        f"{IMAGES_DIR}/{chart_id}.png",
                        None,
                        f"The image for {chart_id} is missing.",
                    )

        if manip_rel is not None:
            self.apply_manipulations(manip_rel, drafts)
        return self.build(drafts, where)

    def naming_message(self, text: str) -> str:
        return (
            f"The chart id {text!r} does not follow the naming G<group>_Q<question>_<1|2>, "
            "e.g. G7_Q1_2 (_1 non-manipulated, _2 manipulated)."
        )

    def list_charts(
        self, folder: str, extensions: Iterable[str], what: str
    ) -> dict[ChartId, str] | None:
        """Chart files in ``folder`` by id; None when the folder is missing."""
        folder_rel = self.source.find(folder)
        if folder_rel is None or self.source.listdir(folder_rel) is None:
            self.problem(
                f"{folder}/", None, f"This folder is missing; it holds one {what} per chart."
            )
            return None
        found: dict[ChartId, str] = {}
        for name in self.source.listdir(folder_rel):
            if name.endswith("/"):
                continue
            stem, _, ext = name.rpartition(".")
            if not stem or ext.casefold() not in extensions:
                continue
            rel = f"{folder_rel}/{name}"
            chart_id = parse_chart_id(stem)
            if chart_id is None:
                self.problem(rel, None, self.naming_message(stem))
            elif chart_id in found:
                self.problem(
                    rel,
                    None,
                    f"A second {what} for {chart_id} (also {self.source.full(found[chart_id])}).",
                )
            else:
                found[chart_id] = rel
        return found

    def apply_manipulations(self, rel: str, drafts: dict[ChartId, _Draft]) -> None:
        rows = self.read_table(
            rel, ("chart_id", "chart_type", "planted_manipulation"), _CHARTOM_COLUMNS
        )
        if rows is None:
            return
        # (group, question or None for "*", version) -> (row, chart type, slug, label)
        table: dict[tuple[int, int | None, int], tuple[int, str | None, str, str]] = {}
        for row, record in rows:
            match = _MANIPULATION_ID.fullmatch(re.sub(r"\s+", "", record["chart_id"]))
            if not match:
                self.problem(
                    rel,
                    row,
                    f"The chart id {record['chart_id']!r} should name a chart (G7_Q1_2) or "
                    "a whole group (G7_*_2).",
                )
                continue
            key = (int(match["g"]), int(match["q"]) if match["q"] else None, int(match["v"]))
            if key in table:
                self.problem(
                    rel,
                    row,
                    f"{record['chart_id']} is listed again (first in row {table[key][0]}).",
                )
                continue
            chart_type = self.chart_type(rel, row, record["chart_type"])
            written = record["planted_manipulation"]
            slug = manipulation_slug(written, chart_type)
            if key[2] == 1 and slug != "none":
                self.problem(
                    rel,
                    row,
                    f"{record['chart_id']} is a non-manipulated (_1) chart but names "
                    "the manipulation "
                    f"{written!r}; leave it empty or write none.",
                )
            if key[2] == 2 and not written:
                self.problem(rel, row, f"{record['chart_id']}: the planted manipulation is empty.")
            table[key] = (row, chart_type, slug, manipulation_label(slug, written))

        used: set[tuple[int, int | None, int]] = set()
        uncovered: dict[int, list[ChartId]] = defaultdict(list)
        for chart_id, draft in drafts.items():
            g, q, v = chart_id.group, chart_id.question, chart_id.version
            if v == 2:
                candidates = [(g, q, 2), (g, None, 2)]
            else:
                candidates = [(g, q, 1), (g, None, 1), (g, q, 2), (g, None, 2)]
            key = next((k for k in candidates if k in table), None)
            if key is None:
                uncovered[g].append(chart_id)
                continue
            used.add(key)
            _, chart_type, slug, label = table[key]
            draft.chart_type = chart_type
            if v == 2:
                draft.manipulation, draft.manipulation_label = slug, label
            else:
                draft.manipulation, draft.manipulation_label = "none", KNOWN_MANIPULATIONS["none"]
        for group, ids in sorted(uncovered.items()):
            listed = ", ".join(str(i) for i in sorted(ids, key=_sort_key))
            self.problem(
                rel,
                None,
                f"No row gives the chart type and manipulation of {listed}; add a row G{group}_*_2 "
                "for the group or one per chart.",
            )
        for key, (row, *_rest) in sorted(table.items(), key=lambda kv: kv[1][0]):
            if key not in used:
                g, q, v = key
                name = f"G{g}_{'*' if q is None else f'Q{q}'}_{v}"
                self.problem(rel, row, f"{name} matches no chart in the benchmark.")

    # -- manifest

    def read_manifest(self, rel: str) -> list[ChartRecord]:
        if rel.casefold().endswith(".json"):
            records = self.read_json_manifest(rel)
        else:
            records = self.read_table(rel, _MANIFEST_FIELDS, _MANIFEST_COLUMNS)
        if records is None:
            return []
        drafts: dict[ChartId, _Draft] = {}
        where: dict[ChartId, tuple[str, int | None]] = {}
        first_row: dict[ChartId, int] = {}
        for row, record in records:
            chart_id = parse_chart_id(record["chart_id"])
            if chart_id is None:
                self.problem(rel, row, self.naming_message(record["chart_id"]))
                continue
            if chart_id in first_row:
                self.problem(
                    rel, row, f"{chart_id} is listed again (first in row {first_row[chart_id]})."
                )
                continue
            first_row[chart_id] = row
            draft = _Draft(chart_id, rel, row)
            draft.answer_type = self.answer_type(rel, row, chart_id, record["answer_type"])
            draft.answer = record["answer"] or None
            if draft.answer is None:
                self.problem(rel, row, f"{chart_id}: the answer is empty.")
            draft.chart_type = self.chart_type(rel, row, record["chart_type"])
            written = record["manipulation"]
            slug = manipulation_slug(written, draft.chart_type)
            if chart_id.version == 1 and slug != "none":
                self.problem(
                    rel,
                    row,
                    f"{chart_id} is the non-manipulated (_1) chart but names the manipulation "
                    f"{written!r}; leave it empty or write none.",
                )
            elif chart_id.version == 2 and not written:
                self.problem(rel, row, f"{chart_id}: the manipulation is empty.")
            else:
                draft.manipulation = slug
                draft.manipulation_label = manipulation_label(slug, written)
            text = _tidy_question(record["question"])
            if text:
                draft.question_text = text
            else:
                self.problem(rel, row, f"{chart_id}: the question is empty.")
            draft.image = self.manifest_image(rel, row, chart_id, record["image"])
            drafts[chart_id] = draft
            where[chart_id] = (rel, row)
        return self.build(drafts, where)

    def read_json_manifest(self, rel: str) -> list[tuple[int, dict[str, str]]] | None:
        text = self.read_text(rel)
        if text is None:
            return None
        try:
            items = json.loads(text)
        except json.JSONDecodeError as exc:
            self.problem(rel, None, f"The file is not valid JSON ({exc.msg}, line {exc.lineno}).")
            return None
        if not isinstance(items, list):
            self.problem(rel, None, "The manifest must be a JSON list with one object per chart.")
            return None
        records = []
        for number, item in enumerate(items, start=1):
            if not isinstance(item, dict):
                self.problem(rel, number, "Each entry must be an object with the chart's fields.")
                continue
            record = {}
            for key, value in item.items():
                name = _MANIFEST_COLUMNS.get(_column(key), _column(key))
                if isinstance(value, list):  # a ranking key written as a JSON list
                    value = " > ".join(str(v) for v in value)
                record[name] = "" if value is None else str(value).strip()
            missing = [c for c in _MANIFEST_FIELDS if c not in record]
            if missing:
                self.problem(rel, number, f"Missing field(s): {', '.join(missing)}.")
                continue
            records.append((number, record))
        return records

    def manifest_image(
        self, rel: str, row: int, chart_id: ChartId, path: str
    ) -> ValidatedImage | None:
        posix = path.replace("\\", "/").strip()
        manifest_dir = str(PurePosixPath(rel).parent)
        if manifest_dir == ".":
            manifest_dir = ""
        if not posix:
            self.problem(rel, row, f"{chart_id}: the image path is empty.")
            return None
        if posix.startswith("/") or re.match(r"^[A-Za-z]:", posix) or ".." in posix.split("/"):
            self.problem(
                rel,
                row,
                f"{chart_id}: the image path {path!r} must be relative to the manifest "
                "and stay inside its folder.",
            )
            return None
        wanted = f"{manifest_dir}/{posix}" if manifest_dir else posix
        found = self.source.find(wanted)
        if found is None:
            self.problem(rel, row, f"{chart_id}: the image {path!r} is missing.")
            return None
        return self.read_image(found)


# ------------------------------------------------------------------------- entry


def _top_level(source: _Source) -> str | None:
    """Which layout the source's root holds: "chartom", a manifest path, or None."""
    entries = source.listdir("") or []
    folded = {e.casefold(): e for e in entries}
    markers = (KEYS_FILE, MANIPULATIONS_FILE, IMAGES_DIR + "/", QUESTIONS_DIR + "/")
    if any(m.casefold() in folded for m in markers):
        return "chartom"
    for name in MANIFEST_NAMES:
        if name in folded:
            return folded[name]
    return None


def _open_layout(source: _Source, reader: _Reader) -> list[ChartRecord]:
    if source.unusable:
        return []
    layout = _top_level(source)
    if layout is None:
        # A zip made by compressing the benchmark folder wraps the layout in it.
        entries = source.listdir("") or []
        if len(entries) == 1 and entries[0].endswith("/"):
            source.base = entries[0].rstrip("/")
            layout = _top_level(source)
    if layout is None:
        reader.problem(
            "",
            None,
            f"No benchmark found: expected {KEYS_FILE}, {MANIPULATIONS_FILE}, {IMAGES_DIR}/ and "
            f"{QUESTIONS_DIR}/ (or a manifest.csv / manifest.json) at the top level.",
        )
        return []
    if layout == "chartom":
        return reader.read_chartom()
    return reader.read_manifest(layout)


def read_benchmark(
    path,
    *,
    max_image_bytes: int = DEFAULT_MAX_BYTES,
    max_image_pixels: int = DEFAULT_MAX_PIXELS,
    max_text_bytes: int = DEFAULT_MAX_TEXT_BYTES,
    max_entries: int = DEFAULT_MAX_ENTRIES,
    max_total_bytes: int = DEFAULT_MAX_TOTAL_BYTES,
) -> Benchmark:
    """Read a benchmark from a folder, a .zip (path or binary file object) or a manifest file.

    Returns every chart that is fully valid and every problem found; callers
    import nothing unless ``problems`` is empty.
    """
    limits = _Limits(
        max_image_bytes, max_image_pixels, max_text_bytes, max_entries, max_total_bytes
    )
    problems: list[Problem] = []
    charts: list[ChartRecord] = []

    if hasattr(path, "read"):
        label = os.path.basename(str(getattr(path, "name", "") or "upload.zip"))
        charts = _read_zip(path, label, problems, limits)
    else:
        p = Path(path)
        if p.is_dir():
            source = _DirSource(p, problems, limits)
            charts = _open_layout(source, _Reader(source, problems, limits))
        elif p.is_file() and p.suffix.casefold() in {".csv", ".json"}:
            source = _DirSource(p.parent, problems, limits)
            charts = _Reader(source, problems, limits).read_manifest(p.name)
        elif p.is_file():
            charts = _read_zip(p, p.name, problems, limits)
        else:
            problems.append(Problem(str(path), None, "No such file or folder."))

    problems.sort(key=lambda pr: (pr.file, pr.row or 0))
    return Benchmark(charts=charts, problems=problems)


def _read_zip(file, label: str, problems: list[Problem], limits: _Limits) -> list[ChartRecord]:
    try:
        with zipfile.ZipFile(file) as zf:
            source = _ZipSource(zf, str(label), problems, limits)
            return _open_layout(source, _Reader(source, problems, limits))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError):
        problems.append(Problem(str(label), None, "This is not a readable .zip archive."))
        return []


# ------------------------------------------------------------------------ writing


def _csv_bytes(rows: list[list[str]]) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerows(rows)
    return buffer.getvalue().encode("utf-8")


def _manipulation_rows(charts: list[ChartRecord]) -> list[list[str]]:
    """Rows of chart_manipulations.csv that read back to exactly these charts."""
    rows = [["chart id", "chart type", "planted manipulation"]]
    by_group: dict[int, list[tuple[ChartId, ChartRecord]]] = defaultdict(list)
    for chart in charts:
        chart_id = parse_chart_id(chart.chart_id)
        by_group[chart_id.group].append((chart_id, chart))
    for group in sorted(by_group):
        members = sorted(by_group[group], key=lambda pair: _sort_key(pair[0]))
        manipulated = [(i, c) for i, c in members if i.version == 2]
        written: dict[tuple[int | None, int], str] = {}  # (question or None, version) -> chart type
        settings = {(c.chart_type, c.manipulation, c.manipulation_label) for _, c in manipulated}
        if len(settings) == 1:
            chart_type, _slug, label = settings.pop()
            rows.append([f"G{group}_*_2", chart_type, label])
            written[(None, 2)] = chart_type
        else:
            for chart_id, chart in manipulated:
                rows.append([str(chart_id), chart.chart_type, chart.manipulation_label])
                written[(chart_id.question, 2)] = chart.chart_type
        plain = [(i, c) for i, c in members if i.version == 1]
        if not manipulated and plain and len({c.chart_type for _, c in plain}) == 1:
            rows.append([f"G{group}_*_1", plain[0][1].chart_type, "none"])
            continue
        for chart_id, chart in plain:
            inherited = written.get((chart_id.question, 2), written.get((None, 2)))
            if inherited != chart.chart_type:
                rows.append([str(chart_id), chart.chart_type, "none"])
    return rows


def write_benchmark(charts: Iterable[ChartRecord], out) -> None:
    """Write charts in the CHARTOM layout to an open ``zipfile.ZipFile`` or a folder path.

    Images keep their bytes and their own extension (a JPEG stays ``.jpg``), so
    nothing is re-encoded; :func:`read_benchmark` accepts any accepted image type.
    A folder should be new or empty: files already in it are left alone and
    would be read back with the new ones.
    """
    charts = sorted(charts, key=lambda c: _sort_key(parse_chart_id(c.chart_id) or ChartId(0, 0, 0)))
    seen = set()
    for chart in charts:
        if (
            parse_chart_id(chart.chart_id) is None
            or str(parse_chart_id(chart.chart_id)) != chart.chart_id
        ):
            raise ValueError(
                f"Chart id {chart.chart_id!r} does not follow G<group>_Q<question>_<1|2>."
            )
        if chart.chart_id in seen:
            raise ValueError(f"Chart id {chart.chart_id} appears twice.")
        seen.add(chart.chart_id)

    files: list[tuple[str, bytes]] = []
    for chart in charts:
        files.append((f"{IMAGES_DIR}/{chart.chart_id}.{chart.image.extension}", chart.image.data))
        files.append((f"{QUESTIONS_DIR}/{chart.chart_id}.txt", chart.question_text.encode("utf-8")))
    files.append(
        (
            KEYS_FILE,
            _csv_bytes(
                [["chart id", "answer type", "answer"]]
                + [[c.chart_id, ANSWER_TYPE_LABELS[c.answer_type], c.answer_key] for c in charts]
            ),
        )
    )
    files.append((MANIPULATIONS_FILE, _csv_bytes(_manipulation_rows(charts))))

    if isinstance(out, zipfile.ZipFile):
        for name, data in files:
            out.writestr(name, data)
        return
    root = Path(out)
    (root / IMAGES_DIR).mkdir(parents=True, exist_ok=True)
    (root / QUESTIONS_DIR).mkdir(parents=True, exist_ok=True)
    for name, data in files:
        (root / name).write_bytes(data)
