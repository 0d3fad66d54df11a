"""Raw labels in long form: one row per (annotator, item, sentence, category decision)."""

from __future__ import annotations

import csv
import io
import json

import pytest

from annotation.models import GoldItem, Qualification
from annotation.services.exports import LABEL_COLUMNS, project_export
from annotation.tests.factories import submit

pytestmark = pytest.mark.django_db


@pytest.fixture
def labelled(project, make_items, members):
    first, second, blocked = members(3)
    item, control = make_items(project, 2)
    submit(project, item, first, [["value_error", "grammatical_error"], []], seconds=30.5)
    submit(project, item, second, [[], ["trend_error"]], seconds=61)
    submit(project, item, blocked, [[], []])
    submit(project, control, first, [["value_error"], []])
    GoldItem.objects.create(project=project, item=control, labels=[["value_error"], []])
    Qualification.objects.create(
        project=project, annotator=blocked, work_state=Qualification.Work.BLOCKED
    )
    return {"users": (first, second, blocked), "item": item, "control": control}


def _csv(project) -> list[dict]:
    text = "".join(project_export(project=project, fmt="labels-csv").chunks)
    return list(csv.DictReader(io.StringIO(text)))


def _jsonl(project) -> list[dict]:
    text = "".join(project_export(project=project, fmt="labels-jsonl").chunks)
    return [json.loads(line) for line in text.splitlines()]


def test_every_decision_is_a_row_with_the_documented_columns(project, labelled):
    rows = _csv(project)
    assert list(rows[0]) == list(LABEL_COLUMNS)
    assert len(rows) == 4 * 2 * 7  # label sets x sentences x categories
    first = [
        r for r in rows if r["annotator"] == "A01" and r["item"] == labelled["item"].external_id
    ]
    marked = {(r["sentence"], r["category"]) for r in first if r["value"] == "1"}
    assert marked == {("0", "value_error"), ("0", "grammatical_error")}
    assert {r["active_seconds"] for r in first} == {"30.5"}
    assert all(r["submitted_at"] and r["leased_at"] for r in rows)


def test_annotators_appear_only_under_pseudonyms(project, labelled):
    text = "".join(project_export(project=project, fmt="labels-csv").chunks)
    text += "".join(project_export(project=project, fmt="labels-jsonl").chunks)
    for user in labelled["users"]:
        assert user.username not in text
    assert {r["annotator"] for r in _jsonl(project)} == {"A01", "A02", "A03"}


def test_rows_say_whether_they_count_and_why_not(project, labelled):
    rows = _jsonl(project)
    by_set = {}
    for row in rows:
        by_set[row["label_set"]] = (
            row["annotator"],
            row["item"],
            row["counted"],
            row["excluded_because"],
            row["annotator_state"],
        )
    item, control = labelled["item"].external_id, labelled["control"].external_id
    assert sorted(by_set.values()) == sorted(
        [
            ("A01", control, False, "control", "qualified"),
            ("A01", item, True, "", "qualified"),
            ("A02", item, True, "", "qualified"),
            ("A03", item, False, "blocked", "blocked"),
        ]
    )
    assert all(isinstance(r["value"], bool) for r in rows)


def test_csv_and_jsonl_hold_the_same_rows(project, labelled):
    as_csv = _csv(project)
    as_jsonl = _jsonl(project)
    assert len(as_csv) == len(as_jsonl)
    for a, b in zip(as_csv, as_jsonl, strict=True):
        assert a["item"] == b["item"] and int(a["sentence"]) == b["sentence"]
        assert a["category"] == b["category"] and a["value"] == str(int(b["value"]))


def test_a_project_without_labels_exports_a_header_only(project):
    text = "".join(project_export(project=project, fmt="labels-csv").chunks)
    assert text.strip() == ",".join(LABEL_COLUMNS)
    assert "".join(project_export(project=project, fmt="labels-jsonl").chunks) == ""
