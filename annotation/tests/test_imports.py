"""Importing captions: each format, images, duplicates, and every bad input rejected whole."""

import csv
import io
import json
import time
import zipfile

import pytest
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from PIL import Image

from annotation.models import ImportBatch, Item, Project, ReferenceLabels
from annotation.services import ImportRejected, captions_import, project_update
from annotation.tests.conftest import CHOCOLATE

pytestmark = pytest.mark.django_db


def record(_id="gpt4v-pew_1", **overrides):
    base = {
        "_id": _id,
        "sentences": ["Turnout rose to 20.4% in 1990.", "Asians have the highest rates."],
        "labels": [["value_error"], []],
        "model": "gpt4v",
        "dataset": "pew",
        "image_path": "https://example.org/pew_1.png",
    }
    return base | overrides


def as_json(*records) -> bytes:
    return json.dumps(list(records)).encode()


def png(color="red") -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (40, 30), color).save(buffer, format="PNG")
    return buffer.getvalue()


def zipped(files: dict) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def rejected(project, data, filename="captions.json", **kwargs) -> list[str]:
    with pytest.raises(ImportRejected) as exc:
        captions_import(project=project, data=data, filename=filename, **kwargs)
    assert not Item.objects.filter(project=project).exists()
    assert not ReferenceLabels.objects.exists()
    return [str(p) for p in exc.value.problems]


# --- formats ----------------------------------------------------------------------------------


def test_chocolate_json_keeps_sentences_labels_apart_and_the_url_as_given(project):
    result = captions_import(
        project=project,
        data=as_json(record(), record("deplot-vistext_2", model="deplot", labels=None)),
        filename="chocolate.json",
    )
    assert result.created == 2
    first = Item.objects.get(external_id="gpt4v-pew_1")
    assert first.sentences == ["Turnout rose to 20.4% in 1990.", "Asians have the highest rates."]
    assert first.image_url == "https://example.org/pew_1.png" and not first.image
    assert (first.model, first.dataset, first.split) == ("gpt4v", "pew", "LVLM")
    assert first.reference.labels == [["value_error"], []]
    second = Item.objects.get(external_id="deplot-vistext_2")
    assert second.split == "LLM" and not ReferenceLabels.objects.filter(item=second).exists()


def test_json_lines_are_read_one_record_per_line(project):
    data = b"\n".join(json.dumps(r).encode() for r in (record("a"), record("b", model="matcha")))
    captions_import(project=project, data=data + b"\n\n", filename="captions.jsonl")
    assert dict(Item.objects.values_list("external_id", "split")) == {"a": "LVLM", "b": "FT"}


def test_csv_captions_are_split_into_sentences_by_the_platform(project):
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["_id", "caption", "model", "dataset", "image_path"])
    writer.writerow(
        [
            "unichart-1",
            "In the U.S., turnout was 20.4% in 1990, e.g. among Asians. It fell vs. 1986! Why?",
            "unichart",
            "vistext",
            "https://example.org/1.png",
        ]
    )
    captions_import(project=project, data=buffer.getvalue().encode(), filename="captions.csv")
    item = Item.objects.get()
    assert item.sentences == [
        "In the U.S., turnout was 20.4% in 1990, e.g. among Asians.",
        "It fell vs. 1986!",
        "Why?",
    ]
    assert item.split == "FT"


def test_csv_may_carry_reference_labels_as_json(project):
    data = (
        b'_id,caption,model,labels\nx1,"Sales rose. Profits fell.",bard,"[[""trend_error""], []]"\n'
    )
    captions_import(project=project, data=data, filename="c.csv")
    assert Item.objects.get().reference.labels == [["trend_error"], []]


def test_images_come_from_a_zip_matched_by_file_name(project):
    images = zipped({"charts/pew_1.png": png("red"), "pew_2.PNG": png("blue")})
    captions_import(
        project=project,
        data=as_json(record("a", image_path="pew_1.png"), record("b", image_path="img/pew_2.PNG")),
        filename="c.json",
        images=images,
    )
    stored = dict(Item.objects.values_list("external_id", "image"))
    assert all(name.startswith("annotation/charts/") for name in stored.values())
    assert stored["a"] != stored["b"]
    assert default_storage.exists(stored["a"])


def test_identical_duplicates_are_reported_and_imported_once(project):
    result = captions_import(
        project=project, data=as_json(record("a"), record("b"), record("a")), filename="c.json"
    )
    assert result.created == 2
    assert result.duplicates == {"a": [1, 3]}
    assert "imported once: a" in result.summary()
    assert ImportBatch.objects.get().duplicates == [{"id": "a", "records": [1, 3]}]


def test_reimporting_leaves_existing_items_alone(project):
    captions_import(project=project, data=as_json(record("a")), filename="c.json")
    result = captions_import(
        project=project, data=as_json(record("a"), record("b")), filename="c.json"
    )
    assert result.created == 1 and result.existing == ["a"]
    assert Item.objects.count() == 2


def test_the_split_map_is_configurable_and_relabels_items(project):
    captions_import(project=project, data=as_json(record("a", model="gpt4v")), filename="c.json")
    project_update(project=project, split_map={"gpt4v": "Frontier"})
    assert Item.objects.get().split == "Frontier"


def test_the_real_chocolate_file_imports_in_seconds(project):
    started = time.monotonic()
    result = captions_import(
        project=project, data=CHOCOLATE.read_bytes(), filename="chocolate.json"
    )
    elapsed = time.monotonic() - started
    assert elapsed < 10, f"took {elapsed:.1f} s"
    assert result.created == 1183 and result.batch.records == 1187
    assert sorted(result.duplicates) == [
        "bard-pew_multi_col-1890",
        "chartt5-pew_multi_col-5756",
        "chartt5-vistext_2734",
        "deplot-pew_multi_col-2016",
    ]
    assert Item.objects.filter(project=project).count() == 1183
    assert ReferenceLabels.objects.count() == 1183
    sentences = sum(len(s) for s in Item.objects.values_list("sentences", flat=True))
    assert sentences == 5300
    splits = {split: Item.objects.filter(split=split).count() for split in ("LVLM", "LLM", "FT")}
    assert splits == {"LVLM": 394, "LLM": 195, "FT": 594}


# --- bad input: rejected whole, with the record and the reason ---------------------------------


def test_a_sentence_label_count_mismatch_is_rejected(project):
    problems = rejected(project, as_json(record("a"), record("b", labels=[[]])))
    assert problems == [
        "record 2 (b): labels: The caption has 2 sentences but 1 label list was given."
    ]


def test_unknown_label_names_are_rejected(project):
    problems = rejected(project, as_json(record("a", labels=[["colour_error"], []])))
    assert "record 1 (a): labels: Sentence 1: unknown category 'colour_error'" in problems[0]


def test_empty_captions_are_rejected(project):
    problems = rejected(
        project,
        as_json(record("a", sentences=[]), record("b", sentences=["  "], labels=None)),
    )
    assert [p.split(":")[0] for p in problems] == ["record 1 (a)", "record 2 (b)"]
    assert all("empty" in p for p in problems)
    csv_problems = rejected(project, b"_id,caption\nc1,   \n", filename="c.csv")
    assert csv_problems == ["record 1 (c1): caption: the caption is empty."]


def test_non_utf8_text_is_rejected_with_its_line(project):
    data = as_json(record("a")).replace(b"Turnout", b"Turn\xe9out")
    problems = rejected(project, data)
    assert problems == [
        "file: encoding: not UTF-8 text: byte 0xe9 in line 1. Save the file as UTF-8 and import it again."
    ]
    lines = json.dumps(record("a")).encode() + b"\n" + b'{"_id": "b\xff"}'
    assert rejected(project, lines, filename="c.jsonl")[0].startswith(
        "record 2: encoding: not UTF-8"
    )


def test_a_broken_image_is_rejected(project):
    images = zipped({"pew_1.png": png()[:60], "pew_2.png": png()})
    problems = rejected(
        project,
        as_json(record("a", image_path="pew_1.png"), record("b", image_path="pew_2.png")),
        images=images,
    )
    assert len(problems) == 1
    assert problems[0].startswith("record 1 (a): image_path: “pew_1.png” is not a usable image")


def test_a_damaged_entry_of_the_zip_is_rejected_with_its_name(project):
    # Random bytes compress to nothing smaller; deflated and then scrambled, the entry's
    # data no longer inflates (zlib.error, which was a 500).
    noise = bytes(range(256)) * 64
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("pew_1.png", noise * 4)
    data = bytearray(buffer.getvalue())
    start = 30 + len("pew_1.png")  # the local header, then the compressed bytes
    for i in range(start + 2, start + 40):
        data[i] ^= 0xFF
    problems = rejected(project, as_json(record("a", image_path="pew_1.png")), images=bytes(data))
    assert problems == [
        "record 1 (a): image_path: “pew_1.png” is damaged in the zip and cannot be unpacked."
    ]


def test_an_encrypted_entry_of_the_zip_is_named_as_such(project):
    data = bytearray(zipped({"pew_1.png": png()}))
    data[6] |= 0x1  # the local header's flags: encrypted
    central = data.find(b"PK\x01\x02")
    data[central + 8] |= 0x1  # and the central directory's, which zipfile reads
    problems = rejected(project, as_json(record("a", image_path="pew_1.png")), images=bytes(data))
    assert problems == [
        "record 1 (a): image_path: “pew_1.png” is encrypted in the zip; zip the images "
        "without a password."
    ]


def test_images_named_but_missing_are_rejected(project):
    problems = rejected(project, as_json(record("a", image_path="nope.png")), images=zipped({}))
    assert problems == [
        "record 1 (a): image_path: “nope.png” is not in the uploaded zip of images."
    ]
    no_zip = rejected(project, as_json(record("a", image_path="pew_1.png")))
    assert "no zip of chart images was uploaded" in no_zip[0]


def test_a_broken_zip_and_odd_urls_are_rejected(project):
    problems = rejected(
        project, as_json(record("a", image_path="javascript://alert(1)")), images=b"not a zip"
    )
    assert "file: images: the images file is not a valid zip archive." in problems
    assert "record 1 (a): image_path: image URLs must be complete http(s) URLs." in problems


def test_duplicates_that_differ_are_rejected(project):
    problems = rejected(project, as_json(record("a"), record("a", model="bard")))
    assert problems == [
        "record 2 (a): _id: the same _id as record 1 but different content; give each caption its own id."
    ]


def test_a_quote_never_closed_is_rejected_not_read_as_one_caption_with_the_rows_after_it(project):
    data = (
        b"_id,caption,model,dataset,image_path\n"
        b'q10,"Turnout rose.,m,d,https://example.org/a.png\n'
        b"q11,Turnout fell.,m,d,https://example.org/b.png\n"
        b"q12,Turnout held.,m,d,https://example.org/c.png\n"
    )
    problems = rejected(project, data, filename="c.csv")
    assert problems == [
        "file: csv: not valid CSV: unexpected end of data in the row starting on line 2. "
        'Look there for a quote (") that is opened but never closed.'
    ]


def test_a_nul_character_is_refused_in_csv_and_json(project):
    # PostgreSQL stores no NUL in text: the import was a 500 there (SQLite kept it).
    reason = "text: it holds a NUL character (binary data, not text); remove it and import again."
    csv_data = b"_id,caption\nc1,Turnout\x00 rose.\n"
    assert rejected(project, csv_data, filename="c.csv") == [f"record 1 (c1): {reason}"]
    escaped = as_json(record("a", sentences=["Turnout\u0000 rose.", "Fine."]))
    assert rejected(project, escaped) == [f"record 1 (a): {reason}"]


def test_malformed_files_are_rejected(project):
    assert rejected(project, b"[{", filename="c.json")[0].startswith("file: json: not valid JSON")
    assert "a list of records" in rejected(project, b'{"_id": 1}', filename="c.json")[0]
    assert "caption column" in rejected(project, b"id,text\n1,hi\n", filename="c.csv")[0]
    assert "Unknown file type" in rejected(project, b"hello", filename="c.txt")[0]
    assert rejected(project, b"[]", filename="c.json") == ["file: file: The file has no records."]
    assert "needs an _id" in rejected(project, as_json(record("")))[0]
    deep = b"[" * 5000 + b"]" * 5000
    assert "nested too deeply" in rejected(project, deep, filename="c.json")[0]
    assert "nested too deeply" in rejected(project, deep, filename="c.jsonl")[0]


@pytest.mark.parametrize("written", ["NaN", "Infinity", "-Infinity", "1e400", "[1]", "true"])
def test_an_id_that_is_no_text_or_number_is_refused(project, written):
    # Python's JSON reader takes NaN, Infinity and 1e400: they were imported as ids "nan" and "inf".
    data = as_json(record("placeholder")).replace(b'"placeholder"', written.encode())
    assert rejected(project, data) == [
        'record 1: _id: an _id is a text or a number, such as "c17" or 17.'
    ]


def test_numbers_are_ids_and_a_model_that_is_nan_is_refused(project, researcher):
    data = as_json(record(17), record(2.5)).replace(b'"gpt4v"', b"NaN", 1)
    assert rejected(project, data) == ["record 1 (17): model: model must be text."]
    captions_import(project=project, data=as_json(record(17), record(2.5)), filename="c.json")
    assert sorted(Item.objects.values_list("external_id", flat=True)) == ["17", "2.5"]


def test_a_rejected_import_is_recorded_with_its_problems(project):
    rejected(project, as_json(record("a", labels=[["x"], []])))
    batch = ImportBatch.objects.get()
    assert batch.state == ImportBatch.State.REJECTED
    assert batch.problems[0]["record"] == 1 and batch.problems[0]["field"] == "labels"


# --- the command, the page and the API ---------------------------------------------------------


def test_the_command_creates_the_project_with_the_default_categories(tmp_path, researcher):
    path = tmp_path / "captions.json"
    path.write_bytes(as_json(record("a"), record("a")))
    out = io.StringIO()
    call_command("import_captions", "new-captions", str(path), stdout=out)
    project = Project.objects.get(slug="new-captions")
    assert project.owner == researcher
    assert project.categories.count() == 7 and project.items.count() == 1
    assert "duplicated _id a: records 1, 2" in out.getvalue()


def test_the_command_takes_an_owner_and_says_when_there_is_no_researcher(tmp_path, make_user):
    path = tmp_path / "captions.json"
    path.write_bytes(as_json(record("a")))
    with pytest.raises(CommandError, match="no researcher to own it"):
        call_command("import_captions", "p", str(path))
    make_user("researcher", username="first")
    make_user("researcher", username="second")
    call_command("import_captions", "p", str(path), "--owner", "second", stdout=io.StringIO())
    assert Project.objects.get(slug="p").owner.username == "second"
    with pytest.raises(CommandError, match="No researcher called 'ghost'"):
        call_command("import_captions", "q", str(path), "--owner", "ghost")


def test_the_command_prints_each_problem_and_imports_nothing(tmp_path, project):
    path = tmp_path / "captions.json"
    path.write_bytes(as_json(record("a", labels=[["x"], []])))
    with pytest.raises(CommandError) as exc:
        call_command("import_captions", project.slug, str(path))
    assert "record 1 (a): labels" in str(exc.value)
    assert "Nothing was imported" in str(exc.value)


def test_the_api_imports_a_file_and_a_zip(researcher_api, project):
    response = researcher_api.post(
        f"/api/v1/projects/{project.slug}/imports/",
        {
            "file": SimpleUploadedFile("c.json", as_json(record("a", image_path="a.png"))),
            "images": SimpleUploadedFile("charts.zip", zipped({"a.png": png()})),
        },
        format="multipart",
    )
    assert response.status_code == 201, response.content
    assert response.json()["created_items"] == 1
    assert Item.objects.get().image


def test_the_api_rejects_a_bad_file_with_each_problem(researcher_api, project):
    response = researcher_api.post(
        f"/api/v1/projects/{project.slug}/imports/",
        {"file": SimpleUploadedFile("c.json", as_json(record("a", labels=[[]])))},
        format="multipart",
    )
    assert response.status_code == 400
    body = response.json()
    assert body["detail"] == "Nothing was imported: 1 problem in the file."
    assert body["errors"]["file"][0].startswith("record 1 (a): labels")


def test_other_researchers_cannot_import_into_a_project(project, other_researcher, client_for):
    response = client_for(other_researcher).post(
        f"/api/v1/projects/{project.slug}/imports/",
        {"file": SimpleUploadedFile("c.json", as_json(record("a")))},
        format="multipart",
    )
    assert response.status_code == 404


def test_the_import_page_shows_problems_in_a_table(client, researcher, password, project):
    client.login(username=researcher.username, password=password)
    response = client.post(
        f"/annotation/projects/{project.slug}/import/",
        {"file": SimpleUploadedFile("c.json", as_json(record("a", labels=[["nope"], []])))},
    )
    assert response.status_code == 400
    assert b"Nothing was imported: 1 problem" in response.content
    assert b"unknown category" in response.content
    ok = client.post(
        f"/annotation/projects/{project.slug}/import/",
        {"file": SimpleUploadedFile("c.json", as_json(record("a")))},
        follow=True,
    )
    assert b"Imported 1 item from c.json" in ok.content


def test_uploads_over_the_size_limit_are_rejected(project, settings):
    settings.CHARTROOM_MAX_UPLOAD_BYTES = 1024 * 1024
    problems = rejected(project, b"[" + b" " * (1024 * 1024) + b"]")
    assert problems == ["file: file: Uploads are limited to 1 MB in all."]
