"""A caption import reads its file as a stream: memory hardly grows with the number of captions
(it held about 3 KB per caption when the whole file was parsed into memory first)."""

import json
import tracemalloc

import pytest

from annotation import caption_streams
from annotation.models import Item, ReferenceLabels
from annotation.services import captions_import, imports
from annotation.tests.test_imports import record

pytestmark = pytest.mark.django_db


def caption(i: int) -> dict:
    sentences = [
        f"The chart shows turnout in region {i % 7} from {1990 + s} to {2000 + s}, peaking at "
        f"{i % 97}.{s}% in {2001 + s}, the highest rate of the decade."
        for s in range(5)
    ]
    return record(
        f"gpt4v-pew_{i}",
        sentences=sentences,
        labels=[["value_error"], [], [], ["trend_error"], []],
    )


def peak_bytes_of_import(project, path) -> int:
    tracemalloc.start()
    try:
        with path.open("rb") as handle:
            captions_import(project=project, data=handle, filename=path.name)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_memory_of_an_import_does_not_grow_with_the_captions_it_holds(
    researcher, monkeypatch, tmp_path
):
    from annotation.services import project_create

    # Small batches and chunks, so that what an import keeps per caption shows with a
    # few thousand of them (the defaults are 2,000 rows and 1 MiB).
    monkeypatch.setattr(imports, "WRITE_BATCH", 50)
    monkeypatch.setattr(caption_streams, "CHUNK", 8 * 1024)
    peaks = {}
    # The first import of the process pays one-off costs (lazy imports, caches, query
    # compilation) that would count against whichever size ran first: a small one first.
    for n in (50, 500, 1000):
        path = tmp_path / f"captions-{n}.json"  # CHOCOLATE JSON: one line, read in chunks
        path.write_text(json.dumps([caption(i) for i in range(n)]))
        project = project_create(owner=researcher, title=f"Captions {n}")
        peaks[n] = peak_bytes_of_import(project, path)
        assert Item.objects.filter(project=project).count() == n
        assert ReferenceLabels.objects.filter(item__project=project).count() == n
    per_caption = (peaks[1000] - peaks[500]) / 500
    # Each caption leaves only its id and a digest behind (to find repeated ids): about
    # 200 bytes, against some 4,000 when every record was held. Measured after the
    # warm-up import: 130-320 bytes until early December 2026, about 650 since (objects
    # kept by Django's bulk insert, not yet explained): the bound still fails an import
    # that holds its records.
    assert per_caption < 1000, f"{per_caption:.0f} bytes more for each caption"


def test_ids_another_import_adds_between_the_check_and_the_writing_reject_the_whole_file(
    project, monkeypatch
):
    from annotation.models import ImportBatch
    from annotation.services import ImportRejected
    from annotation.tests.test_imports import as_json

    real_check = imports._check

    def check_then_a_rival_import(*args, **kwargs):
        checked = real_check(*args, **kwargs)
        Item.objects.create(project=project, external_id="b", sentences=["Rival."], position=99)
        return checked

    monkeypatch.setattr(imports, "_check", check_then_a_rival_import)
    with pytest.raises(ImportRejected) as rejected:
        captions_import(project=project, data=as_json(record("a"), record("b")), filename="c.json")
    assert "another import added some of these ids" in str(rejected.value.problems[0])
    assert list(Item.objects.filter(project=project).values_list("external_id", flat=True)) == ["b"]
    assert ImportBatch.objects.get().state == ImportBatch.State.REJECTED
