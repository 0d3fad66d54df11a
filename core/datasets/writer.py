"""The three metadata files of a dataset export, as bytes ready to write."""

from __future__ import annotations

import json

from core.datasets.card import card_markdown
from core.datasets.croissant import croissant_document
from core.datasets.datapackage import datapackage_document
from core.datasets.description import DatasetDescription


def _json_bytes(doc: dict) -> bytes:
    return (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def metadata_files(d: DatasetDescription) -> list[tuple[str, bytes]]:
    """(path, bytes) of croissant.json, datapackage.json and README.md, in that order."""
    return [
        ("croissant.json", _json_bytes(croissant_document(d))),
        ("datapackage.json", _json_bytes(datapackage_document(d))),
        ("README.md", card_markdown(d).encode("utf-8")),
    ]
