"""Responses in long and wide form, as CSV or Parquet, written in constant memory.

Rows come from one streamed query (ordered by session and position); the
participant facts (pseudonym, exclusion) are looked up per session, which is
small next to the responses (one entry per participant).
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice

from core.csv_safety import csv_writer
from studies.models import Study
from studies.selectors.languages import session_languages
from studies.selectors.results import chart_catalogue, response_rows
from studies.services.exports.pseudonyms import pseudonym, study_salt
from studies.services.results.exclusion import study_exclusion

LONG_COLUMNS = [
    "participant", "participant_number", "language", "trial_kind", "position", "chart_id",
    "attention_check", "answer", "value", "correct", "shown_at", "answered_at",
    "server_ms", "client_ms", "interactions", "first_interaction_ms", "excluded",
    "exclusion_reason", "abs_error",
]  # fmt: skip
# Rows per Parquet row group, gathered in Arrow columns: 10,000 peaks 8 MB lower than 20,000
# (5,000 peaks 3 MB lower again but makes the file 9% larger).
ROW_GROUP = 10_000
# Rows held as Python lists at a time while a group gathers, and rows fetched from the database
# at a time: 1,000 and 2,000 peaked 3 MiB lower than 2,000 and 5,000 on 1.12 M rows, as fast.
BATCH_ROWS = 1_000
FETCH_ROWS = 2_000
CELLS = 6  # wide form: columns per chart


@dataclass(slots=True)
class Person:
    pseudonym: str
    number: int | None
    platform_id: str
    excluded: bool
    reason: str
    language: str = ""


def participants(study: Study, *, include_platform_ids: bool) -> dict[int, Person]:
    salt = study_salt(study)
    languages = session_languages(study)
    people = {}
    for decision in study_exclusion(study).decisions:
        facts = decision.facts
        people[facts.id] = Person(
            pseudonym=pseudonym(salt, facts.id, facts.external_id),
            # Pilot and preview sessions are numbered apart from the live sample (their
            # numbers repeat live ones), so only a live session's number is exported.
            number=None if facts.is_test else facts.number,
            platform_id=facts.external_id if include_platform_ids else "",
            excluded=not decision.included,
            reason=decision.reason_text,
            language=languages.get(facts.id, study.language),
        )
    return people


def long_columns(include_platform_ids: bool) -> list[str]:
    return LONG_COLUMNS[:2] + (["platform_id"] if include_platform_ids else []) + LONG_COLUMNS[2:]


def _head(person: Person, include_platform_ids: bool) -> list:
    """The participant's first cells, in the order of the columns' heads."""
    row = [person.pseudonym, person.number]
    if include_platform_ids:
        row.append(person.platform_id)
    return [*row, person.language]


def _iso(value) -> str:
    return value.isoformat() if value is not None else ""


def long_rows(study: Study, *, include_platform_ids: bool = False) -> Iterator[list]:
    """One row per participant x answered trial (header not included)."""
    people = participants(study, include_platform_ids=include_platform_ids)
    responses = response_rows(study, chunk_size=FETCH_ROWS)
    for (sid, position, kind, chart, check, raw, value, correct, shown, answered, server_ms,
         client_ms, interactions, first_ms, abs_error) in responses:  # fmt: skip
        person = people.get(sid)
        if person is None:
            continue
        row = _head(person, include_platform_ids)
        row += [
            kind, position, chart or "", check or "", raw,
            "" if value is None else json.dumps(value, ensure_ascii=False),
            "" if correct is None else correct, _iso(shown), _iso(answered),
            "" if server_ms is None else server_ms, "" if client_ms is None else client_ms,
            "" if interactions is None else interactions, "" if first_ms is None else first_ms,
            person.excluded, person.reason, "" if abs_error is None else abs_error,
        ]  # fmt: skip
        yield row


def wide_columns(chart_ids: list[str], include_platform_ids: bool) -> list[str]:
    head = ["participant", "participant_number"]
    if include_platform_ids:
        head.append("platform_id")
    head += ["language", "excluded", "exclusion_reason", "attention_failures_answered"]
    for chart in chart_ids:
        head += [
            f"{chart}_answer", f"{chart}_correct", f"{chart}_position", f"{chart}_ms",
            f"{chart}_interactions", f"{chart}_first_interaction_ms",
        ]  # fmt: skip
    return head


def wide_rows(
    study: Study, *, include_platform_ids: bool = False
) -> tuple[list[str], Iterator[list]]:
    """(columns, rows): one row per participant with answers, one column set per chart."""
    people = participants(study, include_platform_ids=include_platform_ids)
    chart_ids = list(chart_catalogue(study)["chart_id"])
    index = {c: i for i, c in enumerate(chart_ids)}
    columns = wide_columns(chart_ids, include_platform_ids)

    def rows():
        current, cells, failed = None, None, 0
        for (
            sid,
            position,
            kind,
            chart,
            _check,
            raw,
            _v,
            correct,
            _s,
            _a,
            server_ms,
            _c,
            interactions,
            first_ms,
            _e,
        ) in response_rows(study, chunk_size=FETCH_ROWS):
            if sid != current:
                if current is not None and current in people:
                    yield _wide_row(people[current], cells, failed, include_platform_ids)
                current, cells, failed = sid, [""] * (CELLS * len(chart_ids)), 0
            if kind == "attention":
                failed += correct is False
                continue
            if chart in index:
                at = CELLS * index[chart]
                cells[at : at + CELLS] = [
                    raw, "" if correct is None else correct, position,
                    "" if server_ms is None else server_ms,
                    "" if interactions is None else interactions,
                    "" if first_ms is None else first_ms,
                ]  # fmt: skip
        if current is not None and current in people:
            yield _wide_row(people[current], cells, failed, include_platform_ids)

    return columns, rows()


def _wide_row(person: Person, cells: list, failed: int, include_platform_ids: bool) -> list:
    return _head(person, include_platform_ids) + [person.excluded, person.reason, failed] + cells


def csv_chunks(columns: list[str], rows: Iterator[list], *, rows_per_chunk: int = 2000):
    """CSV text in chunks of rows, for a StreamingHttpResponse or a file."""
    buffer = io.StringIO()
    writer = csv_writer(buffer)
    writer.writerow(columns)
    for count, row in enumerate(rows, start=1):
        writer.writerow(row)
        if count % rows_per_chunk == 0:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue()


def write_parquet(
    columns: list[str],
    rows: Iterator[list],
    out,
    *,
    row_group: int = ROW_GROUP,
    batch_rows: int = BATCH_ROWS,
):
    """Write rows to Parquet in row groups of ``row_group`` rows, in bounded memory.

    Rows turn into Arrow record batches ``batch_rows`` at a time: Python holds a few thousand
    rows while a row group gathers in Arrow's compact columns, and each group is written
    and dropped before the next.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([(name, _arrow_type(name)) for name in columns])
    with pq.ParquetWriter(out, schema) as writer:
        batches, gathered, written = [], 0, False
        for chunk in _chunks(rows, min(batch_rows, row_group)):
            batches.append(_record_batch(schema, chunk))
            gathered += len(chunk)
            if gathered >= row_group:
                table = pa.Table.from_batches(batches, schema)
                writer.write_table(table.slice(0, row_group), row_group_size=row_group)
                rest = table.slice(row_group)
                batches, gathered, written = rest.to_batches(), rest.num_rows, True
        if gathered or not written:
            writer.write_table(pa.Table.from_batches(batches, schema), row_group_size=row_group)


def _chunks(rows: Iterator[list], size: int) -> Iterator[list[list]]:
    chunk = list(islice(rows, size))
    while chunk:
        yield chunk
        chunk = list(islice(rows, size))


INT_COLUMNS = {"participant_number", "position", "server_ms", "client_ms", "interactions"}
BOOL_COLUMNS = {"correct", "excluded"}
FLOAT_COLUMNS = {"abs_error"}


def _arrow_type(name: str):
    import pyarrow as pa

    if (
        name in INT_COLUMNS
        or name.endswith(("_ms", "_position", "_interactions"))
        or name.startswith("attention")
    ):
        return pa.int64()
    if name in BOOL_COLUMNS or name.endswith("_correct"):
        return pa.bool_()
    if name in FLOAT_COLUMNS:
        return pa.float64()
    return pa.string()


def _record_batch(schema, chunk: list[list]):
    """One column at a time; the CSV's empty cell is Parquet's null."""
    import pyarrow as pa

    arrays = [
        _arrow_array(values, field.type)
        for field, values in zip(schema, zip(*chunk, strict=True), strict=True)
    ]
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


def _arrow_array(values: tuple, arrow_type):
    """An Arrow array of one column, built from numpy buffers.

    Not ``pa.array``: on its first call pyarrow imports pandas (to recognise pandas
    objects), 45 MB of a process that otherwise streams an export in constant memory.
    """
    import numpy as np
    import pyarrow as pa

    n = len(values)
    present = np.fromiter((v is not None and v != "" for v in values), dtype=bool, count=n)
    validity = None if present.all() else pa.py_buffer(np.packbits(present, bitorder="little"))
    if arrow_type == pa.string():
        encoded = [str(v).encode() if ok else b"" for v, ok in zip(values, present, strict=True)]
        offsets = np.zeros(n + 1, dtype=np.int32)
        np.cumsum([len(b) for b in encoded], out=offsets[1:])
        buffers = [validity, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))]
    elif arrow_type == pa.bool_():
        bits = np.fromiter((bool(v) and ok for v, ok in zip(values, present, strict=True)), bool, n)
        buffers = [validity, pa.py_buffer(np.packbits(bits, bitorder="little"))]
    else:
        dtype = np.float64 if arrow_type == pa.float64() else np.int64
        cells = (v if ok else 0 for v, ok in zip(values, present, strict=True))
        buffers = [validity, pa.py_buffer(np.fromiter(cells, dtype=dtype, count=n))]
    return pa.Array.from_buffers(arrow_type, n, buffers)
