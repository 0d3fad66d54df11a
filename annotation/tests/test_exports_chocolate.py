"""The aggregated dataset as CHOCOLATE JSON: the importer reads it back with nothing lost."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from PIL import Image

from annotation.defaults import DEFAULT_CATEGORIES
from annotation.models import Item, ReferenceLabels
from annotation.services import captions_import, project_create
from annotation.services.exports import chocolate_chunks, chocolate_records, project_export
from annotation.tests.conftest import CHOCOLATE
from annotation.tests.factories import submit

pytestmark = pytest.mark.django_db

ORDER = {c.key: n for n, c in enumerate(DEFAULT_CATEGORIES)}


def _exported(project, **kwargs) -> list[dict]:
    export = project_export(project=project, fmt="chocolate", **kwargs)
    return json.loads("".join(export.chunks))


def _in_category_order(record: dict) -> dict:
    # The importer keeps each sentence's labels in the project's category order; the
    # release lists some in another order. A sentence's labels are a set either way.
    return {**record, "labels": [sorted(s, key=ORDER.__getitem__) for s in record["labels"]]}


def test_the_released_file_comes_back_record_for_record(project, researcher):
    original = json.loads(CHOCOLATE.read_bytes())
    captions_import(project=project, data=CHOCOLATE.read_bytes(), filename="chocolate.json")
    exported = _exported(project, labels="reference")
    unique = {}
    for record in original:  # the four repeated ids are identical copies
        unique.setdefault(record["_id"], _in_category_order(record))
    assert len(exported) == len(unique) == 1183
    assert [r["_id"] for r in exported] == list(dict.fromkeys(r["_id"] for r in original))
    assert all(list(r) == list(original[0]) for r in exported)  # the release's key order
    for record in exported:
        assert record == unique[record["_id"]]

    # Imported again into a new project, the export is the same file.
    again = project_create(owner=researcher, title="Round trip")
    data = "".join(project_export(project=project, fmt="chocolate", labels="reference").chunks)
    result = captions_import(project=again, data=data.encode(), filename="export.json")
    assert result.created == 1183 and not result.duplicates
    assert _exported(again, labels="reference") == exported


def test_the_annotators_majority_vote_round_trips_as_reference_labels(
    project, researcher, make_items, members
):
    a, b, c = members(3)
    first, second, unlabelled = make_items(project, 3)
    for annotator, labels in (
        (a, [["value_error", "label_error"], []]),
        (b, [["value_error"], ["grammatical_error"]]),
        (c, [["label_error"], ["grammatical_error"]]),
    ):
        submit(project, first, annotator, labels)
    submit(project, second, a, [[], ["trend_error"]])
    exported = _exported(project, labels="annotators")
    assert [r["_id"] for r in exported] == [first.external_id, second.external_id]
    assert exported[0]["labels"] == [["value_error", "label_error"], ["grammatical_error"]]
    assert exported[1]["labels"] == [[], ["trend_error"]]
    assert unlabelled.external_id not in {r["_id"] for r in exported}

    again = project_create(owner=researcher, title="Published")
    captions_import(project=again, data=json.dumps(exported).encode(), filename="dataset.json")
    for record in exported:
        item = Item.objects.get(project=again, external_id=record["_id"])
        original = Item.objects.get(project=project, external_id=record["_id"])
        assert item.sentences == original.sentences
        assert (item.model, item.dataset, item.split, item.image_url) == (
            original.model,
            original.dataset,
            original.split,
            original.image_url,
        )
        assert ReferenceLabels.objects.get(item=item).labels == record["labels"]


def test_sentences_are_exported_exactly_as_stored(project, make_items, members):
    (annotator,) = members(1)
    item = make_items(project, 1, sentences=("  Leading space.", "Line\nbreak — “quoted”."))[0]
    submit(project, item, annotator, [[], ["ooc_error"]])
    (record,) = _exported(project)
    assert record["sentences"] == ["  Leading space.", "Line\nbreak — “quoted”."]


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (8, 8), "navy").save(out, format="PNG")
    return out.getvalue()


def test_stored_charts_export_as_urls_or_file_names_that_import_again(project, researcher):
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("chart.png", _png())
    record = {
        "_id": "c1",
        "sentences": ["A bar chart."],
        "labels": [[]],
        "model": "gpt4v",
        "dataset": "pew",
        "image_path": "chart.png",
    }
    captions_import(
        project=project,
        data=json.dumps([record]).encode(),
        filename="c.json",
        images=archive.getvalue(),
    )
    stored = Item.objects.get(project=project).image.name
    (with_site,) = _exported(project, labels="reference", base_url="https://chartroom.example.org/")
    assert with_site["image_path"] == f"https://chartroom.example.org/media/{stored}"
    (plain,) = _exported(project, labels="reference")
    assert plain["image_path"] == stored.rsplit("/", 1)[-1]

    # A file name needs the charts as a zip again: exactly what the importer matches by name.
    again = project_create(owner=researcher, title="Again")
    rezipped = io.BytesIO()
    with zipfile.ZipFile(rezipped, "w") as zipped:
        zipped.writestr(plain["image_path"], Item.objects.get(project=project).image.read())
    captions_import(
        project=again,
        data=json.dumps([plain]).encode(),
        filename="c.json",
        images=rezipped.getvalue(),
    )
    assert Item.objects.get(project=again).image.name == stored


def test_an_empty_project_exports_an_empty_list(project):
    assert _exported(project) == []
    assert "".join(chocolate_chunks(chocolate_records(project=project))) == "[]\n"
