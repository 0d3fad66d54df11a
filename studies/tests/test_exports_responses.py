"""Responses exports: long and wide form, CSV and Parquet, pseudonymous ids, jobs."""

import csv
import hashlib
import io

import pyarrow.parquet as pq
import pytest
from django.core.management import call_command

from core.models import AuditEntry, Job
from studies.models import ParticipantSession, Response, StudyResults
from studies.services.exports import export_request, export_write
from studies.services.exports.responses import csv_chunks, write_parquet
from studies.tests.factories import simulated_study

pytestmark = pytest.mark.django_db


def _csv(study, slug, **kw):
    buffer = io.BytesIO()
    export_write(study=study, slug=slug, out=buffer, **kw)
    return list(csv.DictReader(io.StringIO(buffer.getvalue().decode())))


def test_long_form_has_one_row_per_answer_with_exclusion_and_timing(researcher):
    study = simulated_study(researcher, participants=6, compute=False)
    rows = _csv(study, "responses-csv")
    assert len(rows) == Response.objects.filter(session__study=study).count()
    row = next(r for r in rows if r["trial_kind"] == "chart")
    assert row["chart_id"].startswith("G1_Q") and row["correct"] in ("True", "False")
    assert row["server_ms"].isdigit() and row["answered_at"]
    assert {r["excluded"] for r in rows} <= {"True", "False"}
    excluded = [r for r in rows if r["excluded"] == "True"]
    assert all(r["exclusion_reason"] for r in excluded)


def test_platform_ids_are_replaced_by_a_salted_hash_unless_asked(researcher):
    study = simulated_study(researcher, participants=3, compute=False)
    rows = _csv(study, "responses-csv")
    ids = set(ParticipantSession.objects.filter(study=study).values_list("external_id", flat=True))
    text = repr(rows)
    assert not any(pid in text for pid in ids)
    assert "platform_id" not in rows[0]
    salt = StudyResults.objects.get(study=study).salt
    expected = {"p_" + hashlib.sha256(f"{salt}:{pid}".encode()).hexdigest()[:16] for pid in ids}
    assert {r["participant"] for r in rows} == expected
    # the same study exports the same pseudonyms again; a plain unsalted hash is not used
    assert {r["participant"] for r in _csv(study, "responses-csv")} == expected
    unsalted = {"p_" + hashlib.sha256(pid.encode()).hexdigest()[:16] for pid in ids}
    assert not expected & unsalted
    with_ids = _csv(study, "responses-csv", include_platform_ids=True)
    assert {r["platform_id"] for r in with_ids} == ids


def test_wide_form_has_one_row_per_participant_and_columns_per_chart(researcher):
    study = simulated_study(researcher, participants=5, compute=False)
    rows = _csv(study, "responses-wide-csv")
    assert (
        len(rows)
        == ParticipantSession.objects.filter(study=study).exclude(current_position=0).count()
    )
    for chart in ("G1_Q1_1", "G1_Q3_2"):
        assert {f"{chart}_answer", f"{chart}_correct", f"{chart}_position", f"{chart}_ms"} <= set(
            rows[0]
        )
    complete = [r for r in rows if r["excluded"] == "False"]
    assert complete and all(r["G1_Q2_2_correct"] in ("True", "False") for r in complete)


def test_parquet_matches_the_csv_and_keeps_types(researcher, tmp_path):
    study = simulated_study(researcher, participants=4, compute=False)
    path = tmp_path / "long.parquet"
    with open(path, "wb") as handle:
        export_write(study=study, slug="responses-parquet", out=handle)
    table = pq.read_table(path)
    assert table.num_rows == len(_csv(study, "responses-csv"))
    assert str(table.schema.field("correct").type) == "bool"
    assert str(table.schema.field("server_ms").type) == "int64"
    wide = tmp_path / "wide.parquet"
    with open(wide, "wb") as handle:
        export_write(study=study, slug="responses-wide-parquet", out=handle)
    assert pq.read_table(wide).num_rows == 4


def test_writers_work_in_bounded_chunks():
    rows = ([i, f"a{i}"] for i in range(5))
    chunks = list(csv_chunks(["n", "answer"], rows, rows_per_chunk=2))
    assert len(chunks) == 3 and "".join(chunks).count("\n") == 6
    buffer = io.BytesIO()
    write_parquet(["position", "answer"], ([i, str(i)] for i in range(7)), buffer, row_group=3)
    buffer.seek(0)
    parquet = pq.ParquetFile(buffer)
    assert parquet.metadata.num_row_groups == 3 and parquet.metadata.num_rows == 7


def test_parquet_cells_keep_their_values_and_empty_cells_are_null():
    columns = ["answer", "position", "correct", "abs_error"]
    rows = [
        ["Köln, 2019", 0, True, 1.5],
        ["", None, False, ""],
        [None, 3, "", 0.0],
        ["1", 0, None, None],
    ]
    buffer = io.BytesIO()
    write_parquet(columns, iter(rows), buffer)
    buffer.seek(0)
    table = pq.read_table(buffer)
    assert [str(t) for t in table.schema.types] == ["string", "int64", "bool", "double"]
    assert table.to_pylist() == [
        {"answer": "Köln, 2019", "position": 0, "correct": True, "abs_error": 1.5},
        {"answer": None, "position": None, "correct": False, "abs_error": None},
        {"answer": None, "position": 3, "correct": None, "abs_error": 0.0},
        {"answer": "1", "position": 0, "correct": None, "abs_error": None},
    ]


def test_an_export_job_stores_a_private_file_and_logs_platform_ids(
    researcher, django_capture_on_commit_callbacks
):
    study = simulated_study(researcher, participants=3, compute=False)
    with django_capture_on_commit_callbacks(execute=True):
        job = export_request(
            study=study, slug="responses-wide-csv", user=researcher, include_platform_ids=True
        )
    job = Job.objects.get(pk=job.pk)
    assert job.state == "done", job.error
    assert job.result_file and job.result["bytes"] > 0
    with job.result_file.open("rb") as handle:
        assert b"platform_id" in handle.readline()
    entry = AuditEntry.objects.get(action="study.export_platform_ids")
    assert entry.actor == researcher and entry.details["format"] == "responses-wide-csv"


def test_the_command_streams_csv_to_a_file(researcher, tmp_path):
    study = simulated_study(researcher, participants=2, compute=False)
    out = tmp_path / "r.csv"
    call_command("export_study", study.slug, "--format", "responses-csv", "--output", str(out))
    assert out.read_text().startswith("participant,participant_number,language,trial_kind")
