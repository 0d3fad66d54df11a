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

Where each piece lives:

- ``records.py``: what reading returns (:class:`Benchmark`, :class:`ChartRecord`,
  :class:`Problem`) and chart ids (:class:`ChartId`, :func:`parse_chart_id`).
- ``layout.py``: the file and folder names of the CHARTOM layout.
- ``names.py``: chart types, manipulation names, answer types and column names
  as people write them, turned into slugs and constants.
- ``text.py``: :func:`decode_text` and the tidying of question texts.
- ``sources.py``: the files of a folder or zip archive, read within size limits.
- ``reader.py``: what both layouts share (reading text, images and tables; checking
  pairs and answer keys); ``chartom.py`` and ``manifest.py`` read the two layouts.
- ``writing.py``: :func:`write_benchmark`.
- this module: :func:`read_benchmark`, which picks the source and the layout.
"""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

from studies.images import DEFAULT_MAX_BYTES, DEFAULT_MAX_PIXELS

from .chartom import _ChartomReader
from .layout import IMAGES_DIR, KEYS_FILE, MANIFEST_NAMES, MANIPULATIONS_FILE, QUESTIONS_DIR
from .manifest import _ManifestReader
from .names import (
    CHART_TYPES,
    KNOWN_MANIPULATIONS,
    answer_type_from_label,
    chart_type_slug,
    manipulation_label,
    manipulation_slug,
)
from .reader import _Reader
from .records import Benchmark, ChartId, ChartRecord, Problem, parse_chart_id
from .sources import (
    DEFAULT_MAX_ENTRIES,
    DEFAULT_MAX_TEXT_BYTES,
    DEFAULT_MAX_TOTAL_BYTES,
    _DirSource,
    _Limits,
    _Source,
    _ZipSource,
)
from .text import decode_text
from .writing import write_benchmark

__all__ = [
    "CHART_TYPES",
    "DEFAULT_MAX_ENTRIES",
    "DEFAULT_MAX_TEXT_BYTES",
    "DEFAULT_MAX_TOTAL_BYTES",
    "IMAGES_DIR",
    "KEYS_FILE",
    "KNOWN_MANIPULATIONS",
    "MANIFEST_NAMES",
    "MANIPULATIONS_FILE",
    "QUESTIONS_DIR",
    "Benchmark",
    "ChartId",
    "ChartRecord",
    "Problem",
    "answer_type_from_label",
    "chart_type_slug",
    "decode_text",
    "manipulation_label",
    "manipulation_slug",
    "parse_chart_id",
    "read_benchmark",
    "write_benchmark",
]


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


def _open_layout(source: _Source, problems: list[Problem], limits: _Limits) -> list[ChartRecord]:
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
        _Reader(source, problems, limits).problem(
            "",
            None,
            f"No benchmark found: expected {KEYS_FILE}, {MANIPULATIONS_FILE}, {IMAGES_DIR}/ and "
            f"{QUESTIONS_DIR}/ (or a manifest.csv / manifest.json) at the top level.",
        )
        return []
    if layout == "chartom":
        return _ChartomReader(source, problems, limits).read_chartom()
    return _ManifestReader(source, problems, limits).read_manifest(layout)


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
            charts = _open_layout(source, problems, limits)
        elif p.is_file() and p.suffix.casefold() in {".csv", ".json"}:
            source = _DirSource(p.parent, problems, limits)
            charts = _ManifestReader(source, problems, limits).read_manifest(p.name)
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
            return _open_layout(source, problems, limits)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError):
        problems.append(Problem(str(label), None, "This is not a readable .zip archive."))
        return []
