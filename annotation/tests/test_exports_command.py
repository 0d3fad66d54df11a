"""`manage.py export_annotations PROJECT --format F [--labels L] [--output FILE]`."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.management import CommandError, call_command

from annotation.tests.factories import submit

pytestmark = pytest.mark.django_db


@pytest.fixture
def labelled(project, make_items, members):
    a, b, c = members(3)
    items = make_items(project, 2, reference=[["label_error"], []])
    for item in items:
        submit(project, item, a, [["value_error"], []])
        submit(project, item, b, [["value_error"], []])
        submit(project, item, c, [[], []])
    return items


def run(*args) -> str:
    out = io.StringIO()
    call_command("export_annotations", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_chocolate_goes_to_stdout_with_the_annotators_labels_by_default(project, labelled):
    records = json.loads(run(project.slug, "--format", "chocolate"))
    assert [r["labels"] for r in records] == [[["value_error"], []]] * 2


def test_reference_labels_on_request(project, labelled):
    records = json.loads(run(project.slug, "--format", "chocolate", "--labels", "reference"))
    assert [r["labels"] for r in records] == [[["label_error"], []]] * 2


def test_raw_labels_as_csv_and_jsonl(project, labelled):
    rows = list(csv.DictReader(io.StringIO(run(project.slug, "--format", "labels-csv"))))
    assert len(rows) == 6 * 2 * 7
    lines = run(project.slug, "--format", "labels-jsonl").splitlines()
    assert len(lines) == len(rows) and json.loads(lines[0])["annotator"] == "A01"


def test_report_json_has_the_agreement_and_tables_but_no_account_names(project, labelled):
    text = run(project.slug, "--format", "report-json")
    report = json.loads(text)
    assert report["labels"] == "annotators"
    assert report["agreement"]["decisions"][0]["decision"] == "factual"
    assert report["tables"]["factuality"][-1]["split"] == "all"
    assert "annotator_names" not in report
    assert "annotator2" not in text


def test_output_goes_to_a_file(project, labelled, tmp_path):
    target = tmp_path / "dataset.json"
    assert run(project.slug, "--format", "chocolate", "--output", str(target)) == ""
    assert len(json.loads(target.read_text(encoding="utf-8"))) == 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing", "--format", "chocolate"], "No annotation project"),
        (["{slug}", "--format", "chocolate", "--output", "/no/such/dir/x.json"], "no such"),
    ],
)
def test_mistakes_are_explained(project, args, message):
    with pytest.raises(CommandError, match=message):
        run(*[a.format(slug=project.slug) for a in args])


def test_an_unknown_format_is_refused(project):
    with pytest.raises(CommandError, match="invalid choice"):
        run(project.slug, "--format", "xlsx")
