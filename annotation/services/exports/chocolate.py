"""The aggregated dataset in the CHOCOLATE JSON format.

One record per labelled item, keys in the order of the released
``chocolate.json`` (sentences, labels, model, dataset, image_path, _id), so
the project's importer reads it back with nothing lost: the same ids,
sentences (exactly as stored), labels, model, dataset and chart. With an
aggregation method chosen, each record also names it (``aggregation``) and
gives ``posteriors``: per sentence, P(label = 1) per category key.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import PurePosixPath

from django.conf import settings

from annotation.models import Project
from annotation.selectors.agreement import item_records
from annotation.services.reports.aggregate import aggregated_labels, aggregated_with_posteriors


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
    method: str | None = None,
    posteriors: bool = False,
) -> Iterator[dict]:
    """Records of every item with labels from ``labels`` (annotators' aggregated labels or reference).

    ``method`` defaults to the project's; ``posteriors`` (annotators' labels only)
    adds the method and the posteriors to each record.
    """
    posteriors = posteriors and labels == "annotators"
    if posteriors:
        method = method or project.aggregation_method
        aggregated, arrays, keys = aggregated_with_posteriors(
            project, include_excluded=include_excluded, method=method
        )
    else:
        aggregated = aggregated_labels(
            project, labels=labels, include_excluded=include_excluded, method=method
        )
    if not aggregated:
        return
    for pk, external_id, sentences, model, dataset, _split, image, url in item_records(project):
        item_labels = aggregated.get(pk)
        if item_labels is None or len(item_labels) != len(sentences):
            continue
        record = {
            "sentences": sentences,
            "labels": item_labels,
            "model": model,
            "dataset": dataset,
            "image_path": image_path(image, url, base_url),
            "_id": external_id,
        }
        if posteriors:
            record["aggregation"] = method
            record["posteriors"] = _posteriors(arrays.get(pk), keys, len(sentences))
        yield record


def _posteriors(arrays, keys: list[str], sentences: int) -> list[dict[str, float | None]]:
    """Per sentence {category key: P(label = 1)}, rounded to 6 places (None: nobody decided)."""
    if arrays is None:
        return [dict.fromkeys(keys) for _ in range(sentences)]
    rows = arrays[1].tolist()
    return [
        {key: (None if p != p else round(p, 6)) for key, p in zip(keys, rows[n], strict=True)}
        if n < len(rows)
        else dict.fromkeys(keys)
        for n in range(sentences)
    ]


def chocolate_chunks(records) -> Iterator[str]:
    """A JSON list written record by record, so a large dataset streams."""
    yield "["
    for n, record in enumerate(records):
        yield (", " if n else "") + json.dumps(record, ensure_ascii=False)
    yield "]\n"
