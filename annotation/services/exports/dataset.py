"""The caption dataset as one zip ready to publish: the aggregated labels per sentence
(``sentences.csv``, ``sentences.jsonl``) and per caption (``chocolate.json``, the CHOCOLATE format), the raw
labels (``labels.csv``, ``labels.jsonl``) and the metadata (Croissant, data package,
card). ``datasets.load_dataset(folder)`` reads the sentences; ``"captions"`` and
``"raw_labels"`` name the other two configurations."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator

from annotation.models import Project
from annotation.selectors.agreement import item_records, report_categories
from annotation.services.exports.chocolate import chocolate_chunks, chocolate_records, image_path
from annotation.services.exports.dataset_metadata import caption_description, sentence_columns
from annotation.services.exports.labels import labels_csv_chunks, labels_jsonl_chunks
from annotation.services.reports.aggregate import aggregated_labels
from core.csv_safety import csv_writer
from core.datasets import StableZip, metadata_files


def sentence_rows(
    *, project: Project, labels: str, include_excluded: bool = False, base_url: str = ""
) -> Iterator[list]:
    """One row per sentence of every caption with labels, in the columns of
    :func:`sentence_columns`: its text, the caption's facts and one 0/1 per category."""
    categories = report_categories(project)
    factual = {c.key for c in categories if c.factual}
    aggregated = aggregated_labels(project, labels=labels, include_excluded=include_excluded)
    for pk, external_id, sentences, model, dataset, split, image, url in item_records(project):
        item_labels = aggregated.get(pk)
        if item_labels is None or len(item_labels) != len(sentences):
            continue  # as in the CHOCOLATE export: only captions labelled in full
        path = image_path(image, url, base_url)
        for n, (sentence, marked) in enumerate(zip(sentences, item_labels, strict=True)):
            marked = set(marked)
            yield [
                external_id, n, sentence, model, dataset, split, path,
                " ".join(c.key for c in categories if c.key in marked),
                int(not (marked & factual)),
                *(int(c.key in marked) for c in categories),
            ]  # fmt: skip


def _sentence_files(header: list[str], rows) -> tuple[bytes, bytes, int]:
    """sentences.csv (the table the metadata describes) and sentences.jsonl (the same rows
    with the labels as a list and true/false, which `datasets` reads: every configuration
    of one folder is read with one loader, and chocolate.json needs the JSON one)."""
    buffer = io.StringIO()
    writer = csv_writer(buffer, lineterminator="\n")
    writer.writerow(header)
    lines = []
    for row in rows:
        writer.writerow(row)
        record = dict(zip(header, row, strict=True))
        record["labels"] = record["labels"].split()
        for key in header[8:]:
            record[key] = bool(record[key])
        lines.append(json.dumps(record, ensure_ascii=False) + "\n")
    return buffer.getvalue().encode("utf-8"), "".join(lines).encode("utf-8"), len(lines)


def dataset_zip_bytes(
    *, project: Project, labels: str, include_excluded: bool = False, base_url: str = ""
) -> bytes:
    """The zip's bytes; the same project and labels give the same bytes."""
    categories = report_categories(project)
    sentences, sentences_jsonl, n_sentences = _sentence_files(
        [f.name for f in sentence_columns(categories)],
        sentence_rows(
            project=project, labels=labels, include_excluded=include_excluded, base_url=base_url
        ),
    )
    records = chocolate_records(
        project=project, labels=labels, include_excluded=include_excluded, base_url=base_url
    )
    contents = {
        "sentences.csv": sentences,
        "sentences.jsonl": sentences_jsonl,
        "chocolate.json": "".join(chocolate_chunks(records)).encode("utf-8"),
        "labels.csv": "".join(labels_csv_chunks(project=project)).encode("utf-8"),
        "labels.jsonl": "".join(labels_jsonl_chunks(project=project)).encode("utf-8"),
    }
    description = caption_description(
        project=project,
        labels=labels,
        include_excluded=include_excluded,
        contents=contents,
        categories=categories,
        sentences=n_sentences,
    )
    out = io.BytesIO()
    with StableZip(out) as zf:
        for path, content in [*contents.items(), *metadata_files(description)]:
            zf.writestr(path, content)
    return out.getvalue()
