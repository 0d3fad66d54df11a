"""Reading model-answer files (CSV, JSON Lines, JSON) and checking them against a study."""

import json

import pytest

from studies.model_answers_format import (
    DUPLICATE,
    FILE,
    MAX_MODEL_NAME,
    MIND,
    MISSING,
    UNKNOWN_CHART,
    VALUE,
    check_against_charts,
    check_fact_answer,
    coverage,
)
from studies.model_answers_reading import read_model_answers
from studies.models import ModelAnswer

# The registered answer types' keys (studies.answer_types).
MULTIPLE_CHOICE, FREE_TEXT, RANKING = "multiple_choice", "free_text", "ranking"

STUDY = ["G1_Q1_1", "G1_Q1_2", "G2_Q1_1", "G2_Q1_2"]

HEADER = "model,chart_id,fact_answer,mind_prediction,mind_justification\n"


def _csv(*lines, header=HEADER):
    return (header + "".join(line + "\n" for line in lines)).encode("utf-8")


def _kinds(result):
    return [(p.row, p.kind) for p in result.problems]


def test_a_quote_never_closed_is_a_problem_not_the_rows_after_it_swallowed():
    # Read leniently, row 2's open quote took row 3 into its cell: "1 row" imported.
    result = read_model_answers(
        _csv('gpt,G1_Q1_1,yes,"a', "gpt-q,G1_Q1_2,1.5,0.4,fine", "gpt,G2_Q1_1,2,0.5,ok"),
        "answers.csv",
    )
    assert not result.rows
    assert [str(p.message) for p in result.problems] == [
        "The file is not valid CSV: unexpected end of data in the row starting on line 2. "
        'Look there for a quote (") that is opened but never closed.'
    ]


def test_a_row_with_text_beyond_the_header_is_a_problem_and_a_short_row_is_read():
    result = read_model_answers(
        _csv(
            "gpt,G1_Q1_1,1.5,0.4,fine,",  # a spreadsheet's empty trailing cell
            "gpt,G1_Q1_2,2",  # the optional columns left off the end
            "gpt,G2_Q1_1,2,0.5,ok, really ok",  # an unquoted comma: one cell split in two
        ),
        "answers.csv",
    )
    assert [row.chart_id for row in result.rows] == ["G1_Q1_1", "G1_Q1_2"]
    assert [(p.row, p.kind) for p in result.problems] == [(4, "cells")]
    assert result.problems[0].message == (
        "This row has 6 cells where the header has 5 columns: quote a cell that holds the "
        "separator."
    )


def test_it_reads_a_clean_csv_and_extracts_the_mind_number():
    result = read_model_answers(
        _csv(
            'gpt,G1_Q1_1,1.2 million,"I predict 0.35 because the axis starts at 240",Truncated.',
            "gpt,G1_Q1_2,1.5,40%,",
        ),
        "answers.csv",
    )
    assert result.ok
    first, second = result.rows
    assert (first.row, first.model, first.chart_id) == (2, "gpt", "G1_Q1_1")
    assert first.fact_answer == "1.2 million"
    assert first.mind_prediction == 0.35
    assert first.mind_justification == "Truncated."
    assert second.mind_prediction == pytest.approx(0.4)
    assert second.mind_justification is None
    assert result.models == ["gpt"]


def test_the_mind_text_is_the_justification_when_there_is_no_column_for_it():
    data = _csv(
        "m,G1_Q1_2,0.31 - the y-axis is truncated", header="model,chart_id,mind_prediction\n"
    )
    row = read_model_answers(data, "a.csv").rows[0]
    assert row.mind_prediction == 0.31
    assert row.mind_justification == "0.31 - the y-axis is truncated"
    assert row.fact_answer is None


def test_it_accepts_header_variants_semicolons_and_cp1252():
    data = (
        "Model Name;Chart;FACT;MIND answer;Reasoning\r\n"
        "claude;charts/G1_Q1_2.png;1,5;0.6;Die Achse ist abgeschnitten – café\r\n"
    ).encode("cp1252")
    result = read_model_answers(data, "export.csv")
    assert result.ok, result.problems
    row = result.rows[0]
    assert (row.model, row.chart_id, row.fact_answer) == ("claude", "G1_Q1_2", "1,5")
    assert row.mind_justification.endswith("– café")


def test_it_reads_utf16_with_a_byte_order_mark():
    data = _csv("m,G1_Q1_1,3,0.2,x").decode().encode("utf-16")
    assert read_model_answers(data, "a.csv").rows[0].mind_prediction == 0.2


def test_it_collects_every_problem_with_its_row_number():
    result = read_model_answers(
        _csv(
            "gpt,G1_Q1_1,1.2,0.3,ok",
            "gpt,G1_Q1_1,1.3,0.4,again",  # duplicate of row 2
            ",G1_Q1_2,1.2,0.3,no model",
            "gpt,,1.2,0.3,no chart",
            "gpt,G1_Q1_2,1.2,I think 45,out of range",
            "gpt,G2_Q1_1,1.2,lots of people,no number",
            "gpt,G2_Q1_2,1.2,0.3-0.4,a range",
        ),
        "answers.csv",
    )
    assert _kinds(result) == [
        (3, DUPLICATE),
        (4, MISSING),
        (5, MISSING),
        (6, MIND),
        (7, MIND),
        (8, MIND),
    ]
    assert "first is on row 2" in result.problems[0].message
    assert "outside [0, 1]" in result.problems[3].message
    assert str(result.problems[4]).startswith("answers.csv, row 7: ")
    # Unreadable MIND answers keep their row, with no number rather than a guess.
    kept = {r.chart_id: r for r in result.rows}
    assert kept["G1_Q1_2"].mind_prediction is None
    assert "outside" in kept["G1_Q1_2"].mind_problem
    assert kept["G1_Q1_1"].fact_answer == "1.2"  # the first of the duplicates wins


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "empty"),
        (b"\n  \n", "empty"),
        (HEADER.encode(), "no answer rows"),
        (b"name,score\nx,1\n", "Missing column(s): model, chart id, fact answer or mind"),
        (b"model,chart_id,mind,prediction\nm,G1_Q1_1,0.1,0.2\n", "both mean mind prediction"),
        (b"\x00\x01\x02model", "cannot be decoded"),
    ],
)
def test_it_reports_unusable_files(data, message):
    result = read_model_answers(data, "answers.csv")
    assert not result.rows
    assert [p.kind for p in result.problems] == [FILE]
    assert message in result.problems[0].message


def test_it_reads_json_lines_with_numbers_and_ranking_lists():
    lines = [
        {"model": "m", "chart_id": "G1_Q1_1", "fact_answer": 1.2, "mind_prediction": 0.3},
        {"model": "m", "chart_id": "G1_Q1_2", "fact_answer": ["A", "B"], "mind": "35%",
         "justification": "3D pie", "raw": {"ignored": True}},
    ]  # fmt: skip
    data = "\n".join(json.dumps(line) for line in lines).encode() + b"\n\n"
    result = read_model_answers(data, "answers.jsonl")
    assert result.ok, result.problems
    assert [r.fact_answer for r in result.rows] == ["1.2", "A > B"]
    assert [r.mind_prediction for r in result.rows] == [0.3, 0.35]
    assert [r.row for r in result.rows] == [1, 2]


def test_json_problems_carry_line_numbers():
    data = (
        b'{"model": "m", "chart_id": "G1_Q1_1", "mind_prediction": 2}\n'
        b"not json\n"
        b"[1, 2]\n"
        b'{"model": "m", "chart_id": "G1_Q1_2", "fact_answer": {"a": 1}}\n'
        b'{"model": "m", "chart_id": "G2_Q1_1", "fact_answer": true}\n'
    )
    result = read_model_answers(data, "answers.jsonl")
    assert _kinds(result) == [(1, MIND), (2, FILE), (3, FILE), (4, VALUE), (5, VALUE)]


def test_a_json_array_and_a_file_without_extension_are_recognised():
    data = json.dumps([{"model": "m", "chart_id": "G1_Q1_1", "fact_answer": "2"}]).encode()
    assert read_model_answers(data, "answers.json").rows[0].fact_answer == "2"
    assert read_model_answers(data, "upload").rows[0].chart_id == "G1_Q1_1"


def test_a_json_file_missing_a_field_everywhere_is_reported_once():
    data = b'{"model": "m", "fact_answer": 1}\n{"model": "m", "fact_answer": 2}\n'
    result = read_model_answers(data, "a.jsonl")
    assert [(p.row, p.kind) for p in result.problems] == [(None, FILE)]
    assert "chart id" in result.problems[0].message


def test_it_reads_from_a_path_and_reports_a_missing_file(tmp_path):
    path = tmp_path / "run.csv"
    path.write_bytes(_csv("m,G1_Q1_1,1,0.5,x"))
    assert read_model_answers(path).rows[0].model == "m"
    result = read_model_answers(tmp_path / "nope.csv")
    assert result.problems[0].kind == FILE and "cannot be read" in result.problems[0].message


def test_a_file_over_the_size_limit_is_refused():
    result = read_model_answers(_csv("m,G1_Q1_1,1,0.5,x"), "a.csv", max_bytes=10)
    assert "limit" in result.problems[0].message


# --------------------------------------------------------------------------- checks


def test_unknown_chart_ids_are_reported_with_their_rows():
    result = read_model_answers(
        _csv("m,G1_Q1_1,1,0.5,x", "m,G7_Q1_1,1,0.5,x", "m,g2_q1_2,1,0.5,x"), "a.csv"
    )
    problems = check_against_charts(result.rows, STUDY, filename="a.csv")
    assert [(p.row, p.kind) for p in problems] == [(3, UNKNOWN_CHART), (4, UNKNOWN_CHART)]
    assert "not in this study" in problems[0].message
    assert "did you mean G2_Q1_2" in problems[1].message


def test_coverage_lists_what_each_model_left_unanswered():
    result = read_model_answers(
        _csv(
            "full,G1_Q1_1,1,0.1,x",
            "full,G1_Q1_2,1,0.2,x",
            "full,G2_Q1_1,1,0.3,x",
            "full,G2_Q1_2,1,0.4,x",
            "partial,G2_Q1_2,1,,x",
            "partial,G1_Q1_1,,0.9,x",
            "partial,G1_Q1_2,,,",
            "partial,G9_Q1_1,1,0.5,outside the study",
        ),
        "a.csv",
    )
    full, partial = coverage(result.rows, STUDY)
    assert (full.answered, full.total, full.coverage, full.missing) == (4, 4, 1.0, [])
    assert partial.model == "partial"
    assert (partial.answered, partial.fact_answered, partial.mind_answered) == (2, 1, 1)
    assert partial.coverage == 0.5
    assert partial.missing == ["G1_Q1_2", "G2_Q1_1"]
    assert partial.missing_fact == ["G1_Q1_1", "G1_Q1_2", "G2_Q1_1"]
    assert partial.missing_mind == ["G1_Q1_2", "G2_Q1_1", "G2_Q1_2"]


@pytest.mark.parametrize(
    ("answer", "answer_type", "key", "options", "expected"),
    [
        ("1.2 million bags", FREE_TEXT, "1.2 million", None, (True, None)),
        ("1.5", FREE_TEXT, "1.2", None, (False, None)),
        ("2", MULTIPLE_CHOICE, 1, ["up", "down"], (True, None)),
        ("B > A", RANKING, "A > B", None, (False, None)),
        (None, FREE_TEXT, "1.2", None, (None, None)),
        ("  ", FREE_TEXT, "1.2", None, (None, None)),
    ],
)
def test_fact_answers_are_checked_with_the_participants_rule(
    answer, answer_type, key, options, expected
):
    check = check_fact_answer(answer, answer_type, key, options=options)
    assert (check.correct, check.problem) == expected


def test_an_unreadable_fact_answer_is_wrong_with_the_reason():
    check = check_fact_answer("between 40 and 50", FREE_TEXT, "45")
    assert check.correct is False
    assert "answer not readable" in check.problem


@pytest.mark.parametrize(
    "data, says",
    [
        (b"\x89PNG\r\n\x1a\n" + b"\x00" * 40, "the file is a PNG image, not text"),
        (b"PK\x03\x04" + b"\x00" * 40, "the file is a zip archive (an .xlsx or .docx is one too)"),
        (b"model,chart\n\x00\x01\x02\xff\x00\x00\x07 binary", "binary data, not text"),
        ("model,chart_id\ngpt,G1_Q1_1\n".encode("utf-16-le"), "UTF-16 without a byte-order mark"),
    ],
)
def test_a_file_that_is_not_text_says_what_it_is(data, says):
    result = read_model_answers(data, "answers.csv")
    assert not result.rows
    assert any(says in str(problem) for problem in result.problems), result.problems


def test_a_model_name_longer_than_the_column_is_a_problem_of_its_row():
    assert ModelAnswer._meta.get_field("model").max_length == MAX_MODEL_NAME
    long_name = "m" * (MAX_MODEL_NAME + 1)  # stored, it was a 500 on PostgreSQL
    result = read_model_answers(
        _csv(f"{long_name},G1_Q1_1,1.5,0.4,fine", "gpt,G1_Q1_2,2,0.5,ok"), "answers.csv"
    )
    assert [row.model for row in result.rows] == ["gpt"]
    assert [(p.row, p.kind) for p in result.problems] == [(2, VALUE)]
    assert "longer than 200 characters" in result.problems[0].message
