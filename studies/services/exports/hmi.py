"""The HMI dataset: the study's charts in the CHARTOM layout plus the HMI table, MIND
questions and the dataset metadata (Croissant, data package, card); or the same numbers as JSON."""

from __future__ import annotations

import io
import json
import mimetypes
import zipfile
from dataclasses import replace
from pathlib import PurePosixPath

from django.core.exceptions import ValidationError
from django.utils import timezone

from analysis.tables import natural_key
from core.csv_safety import csv_writer
from core.datasets import StableZip, metadata_files
from studies.benchmark_format import IMAGES_DIR, ChartRecord, write_benchmark
from studies.models import Chart, Study
from studies.services.exports.hmi_metadata import METADATA_FIELDS, MIND_DIR, hmi_description
from studies.services.exports.replication import (
    README_TITLE,
    replication_files,
    replication_readme,
)
from studies.services.library.exporting import chart_record
from studies.services.results.compute import results_compute

HMI_COLUMNS = [
    "chart id", "group", "question", "version", "chart type", "manipulation", "answer type",
    "FACT question", "answer key", "HMI", "n", "CI low", "CI high", "note",
]  # fmt: skip

DEFINITIONS = {
    "HMI": "Human Misleadingness Index of a chart: the fraction of included participants who "
    "did not answer its FACT question correctly; an unanswered question counts as not correct "
    "(CHARTOM paper, section 4.2).",
    "n": "Included participants who were shown the chart.",
    "CI": "95% Wilson score interval of HMI (Wilson 1927).",
    "version": "1 = non-manipulated, 2 = manipulated (chart ids end in _1 or _2).",
    "included": "Completed, not a pilot or preview session, within the study's exclusion rules, "
    "unless a researcher overrode the decision (with a logged reason).",
}


def _charts(study: Study) -> list[Chart]:
    charts = Chart.objects.filter(question__study_pairs__study=study).select_related(
        "question__group", "manipulation"
    )
    return sorted(charts, key=lambda c: natural_key(c.chart_id))


# The end of the message for a chart whose id does not follow the CHARTOM naming.
NOT_CHARTOM = "the dataset cannot be written in that layout; export it as JSON instead."


def _number(value):
    return "" if value is None else value


def hmi_rows(data: dict) -> list[list]:
    rows = []
    for c in data["charts"]:
        rows.append(
            [
                c["chart_id"], c["group"], c["question"], c["version"], c["chart_type"],
                c["manipulation"] if c["version"] == 2 else "none", c["answer_type"],
                c.get("fact_question", ""), c.get("answer_key", ""),
                _number(c["hmi"]), c["n"], _number(c["ci_low"]), _number(c["ci_high"]),
                c["note"] or "",
            ]
        )  # fmt: skip
    return rows


LANGUAGE_COLUMNS = ["language", "chart_id", "version", "hmi", "n", "ci_low", "ci_high"]


def hmi_language_rows(data: dict) -> list[list]:
    """The HMI split by language (``data["by_language"]``), one row per language x chart."""
    split = data.get("by_language")
    if not split:
        return []
    rows = []
    for row in split["rows"]:
        for language, cell in zip(split["languages"], row["cells"], strict=True):
            rows.append(
                [language["code"], row["chart_id"], row["version"], _number(cell["hmi"]),
                 cell["n"], _number(cell["ci_low"]), _number(cell["ci_high"])]
            )  # fmt: skip
    return rows


def hmi_dataset(study: Study) -> dict:
    """The HMI numbers with the chart texts, fresh from the database."""
    data = results_compute(study, fit_models=False)
    texts = {
        c.chart_id: (c.question.text, c.question.answer_key, c.question.mind_question)
        for c in _charts(study)
    }
    for chart in data["charts"]:
        fact, key, mind = texts.get(chart["chart_id"], ("", "", ""))
        chart.update(fact_question=fact, answer_key=key, mind_question=mind)
    return data


def _csv_bytes(rows: list[list]) -> bytes:
    buffer = io.StringIO()
    writer = csv_writer(buffer, lineterminator="\n")
    writer.writerows(rows)
    return buffer.getvalue().encode("utf-8")


def _benchmark_files(records: list[ChartRecord]) -> dict[str, bytes]:
    """The CHARTOM layout's files by path, in the order the layout writer gives them."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        write_benchmark(records, zf)
    with zipfile.ZipFile(buffer) as zf:
        return {info.filename: zf.read(info) for info in zf.infolist()}


def _metadata_rows(data: dict, images: dict[str, str]) -> list[list]:
    """The HMI table with each chart's image path first (``file_name``, as the Hugging Face
    image folder loader reads it), one row per chart that has an image."""
    by_id = {c["chart_id"]: c for c in data["charts"]}
    rows = []
    for row in hmi_rows(data):
        chart_id = row[0]
        if chart_id in images:
            rows.append([images[chart_id], *row[:9], by_id[chart_id]["mind_question"], *row[9:]])
    return rows


def _image_type(paths) -> str:
    extensions = {p.rsplit(".", 1)[-1].lower() for p in paths}
    if len(extensions) == 1:
        return mimetypes.types_map.get("." + extensions.pop(), "image/png")
    return "image/*"


def hmi_zip_write(study: Study, out) -> dict:
    """Write the HMI dataset zip to ``out`` (a path or binary file). Returns the data.

    The zip holds the CHARTOM layout, the HMI table (``metadata.csv`` with the image
    paths, and ``HMI.csv``), the MIND questions and the metadata: ``croissant.json``,
    ``datapackage.json`` and the dataset card ``README.md``. Nothing in it depends on
    the time of the export, so an unchanged study exports to the same bytes.
    """
    data = hmi_dataset(study)
    records = [chart_record(chart, otherwise=NOT_CHARTOM) for chart in _charts(study)]
    if not records:
        raise ValidationError("This study has no chart pairs, so there is no dataset to export.")
    contents = _benchmark_files(records)
    images = {
        PurePosixPath(path).stem: path for path in contents if path.startswith(IMAGES_DIR + "/")
    }
    contents["metadata.csv"] = _csv_bytes(
        [[f.name for f in METADATA_FIELDS], *_metadata_rows(data, images)]
    )
    contents["HMI.csv"] = _csv_bytes([HMI_COLUMNS, *hmi_rows(data)])
    if data.get("by_language"):
        contents["HMI_by_language.csv"] = _csv_bytes([LANGUAGE_COLUMNS, *hmi_language_rows(data)])
    for chart in data["charts"]:
        contents[f"{MIND_DIR}/{chart['chart_id']}.txt"] = chart["mind_question"].encode()
    contents.update(replication_files(study))
    description = hmi_description(
        study=study,
        data=data,
        contents=contents,
        image_type=_image_type(images.values()),
        definitions=DEFINITIONS,
    )
    description = replace(
        description,
        card_sections=(*description.card_sections, (README_TITLE, replication_readme())),
    )
    with StableZip(out) as zf:
        for path, content in contents.items():
            zf.writestr(path, content)
        for path, content in metadata_files(description):
            zf.writestr(path, content)
    return data


def hmi_json(study: Study) -> dict:
    data = hmi_dataset(study)
    return {
        "study": {"title": study.title, "slug": study.slug},
        "exported_at": timezone.now().isoformat(),
        "funnel": data["funnel"],
        "exclusion_rules": data["rules"],
        "definitions": DEFINITIONS,
        "messages": data["messages"],
        "charts": [
            {
                k: c.get(k)
                for k in (
                    "chart_id",
                    "group",
                    "question",
                    "version",
                    "chart_type",
                    "manipulation",
                    "answer_type",
                    "fact_question",
                    "answer_key",
                    "mind_question",
                    "hmi",
                    "n",
                    "n_wrong",
                    "n_unanswered",
                    "ci_low",
                    "ci_high",
                    "note",
                )
            }  # fmt: skip
            for c in data["charts"]
        ],
        "groups": data["groups"],
        "languages": [study.language, *study.other_languages],
        "by_language": [
            dict(zip(LANGUAGE_COLUMNS, r, strict=True)) for r in hmi_language_rows(data)
        ],
    }


def hmi_json_bytes(study: Study) -> bytes:
    return json.dumps(hmi_json(study), indent=2, ensure_ascii=False).encode("utf-8")
