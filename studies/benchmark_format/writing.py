"""Writing charts in the CHARTOM layout, so that reading them back gives the same charts."""

from __future__ import annotations

import io
import zipfile
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

from core.csv_safety import csv_writer
from studies.answer_types import get_type

from .layout import IMAGES_DIR, KEYS_FILE, MANIPULATIONS_FILE, QUESTIONS_DIR
from .records import ChartId, ChartRecord, _sort_key, parse_chart_id


def _csv_bytes(rows: list[list[str]]) -> bytes:
    buffer = io.StringIO()
    writer = csv_writer(buffer, lineterminator="\n")
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
                + [
                    [c.chart_id, get_type(c.answer_type).written_names[0], c.answer_key]
                    for c in charts
                ]
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
