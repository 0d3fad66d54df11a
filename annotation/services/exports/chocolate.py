"""The aggregated dataset in the CHOCOLATE JSON format.

One record per labelled item, keys in the order of the released
``chocolate.json`` (sentences, labels, model, dataset, image_path, _id), so
the project's importer reads it back with nothing lost: the same ids,
sentences (exactly as stored), labels, model, dataset and chart.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import PurePosixPath

from django.conf import settings

from annotation.models import Project
from annotation.selectors.agreement import item_records
from annotation.services.reports.aggregate import aggregated_labels


def image_path(image: str, image_url: str, base_url: str = "") -> str:
    """An item's chart as CHOCOLATE's image_path.

    A URL stays as it was imported. A chart stored here becomes an absolute URL
    when ``base_url`` (the site's address) is known, else its file name, which
    the importer matches against a zip of the chart files.
    """
    if image_url:
        return image_url
    if not image:
        return ""
    if base_url:
        return base_url.rstrip("/") + settings.MEDIA_URL + image
    return PurePosixPath(image).name


def chocolate_records(
    *,
    project: Project,
    labels: str = "annotators",
    include_excluded: bool = False,
    base_url: str = "",
) -> Iterator[dict]:
    """Records of every item with labels from ``labels`` (annotators' majority vote or reference)."""
    aggregated = aggregated_labels(project, labels=labels, include_excluded=include_excluded)
    if not aggregated:
        return
    for pk, external_id, sentences, model, dataset, _split, image, url in item_records(project):
        item_labels = aggregated.get(pk)
        if item_labels is None or len(item_labels) != len(sentences):
            continue
        yield {
            "sentences": sentences,
            "labels": item_labels,
            "model": model,
            "dataset": dataset,
            "image_path": image_path(image, url, base_url),
            "_id": external_id,
        }


def chocolate_chunks(records) -> Iterator[str]:
    """A JSON list written record by record, so a large dataset streams."""
    yield "["
    for n, record in enumerate(records):
        yield (", " if n else "") + json.dumps(record, ensure_ascii=False)
    yield "]\n"
