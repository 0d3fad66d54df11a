"""CSV exports never hand a spreadsheet a formula to run (OWASP "CSV Injection")."""

import csv
import io

import pandas as pd
import pytest

from core.csv_safety import FORMULA_TRIGGERS, csv_safe, csv_unescape, csv_writer


@pytest.mark.parametrize(
    ("cell", "written"),
    [
        ('=HYPERLINK("http://evil.example","x")', '\'=HYPERLINK("http://evil.example","x")'),
        ("+49 30 1234", "'+49 30 1234"),
        ("-cmd|' /C calc'!A0", "'-cmd|' /C calc'!A0"),
        ("@SUM(A1:A9)", "'@SUM(A1:A9)"),
        ("\t=1+1", "'\t=1+1"),
        ("\r=1+1", "'\r=1+1"),
        ("Sales rose = 3", "Sales rose = 3"),
        ("-0.5", "-0.5"),  # a number written as text stays a number
        ("+1e-3", "+1e-3"),
        (-0.5, -0.5),
        (3, 3),
        (None, None),
        ("", ""),
    ],
)
def test_text_that_a_spreadsheet_would_run_is_escaped_and_numbers_stay_numbers(cell, written):
    assert csv_safe(cell) == written


def test_escaped_cells_read_back_as_written():
    for cell in ("=1+1", "@x", "-x", "plain", "'quoted", "-0.5"):
        assert csv_unescape(str(csv_safe(cell))) == cell


def test_the_writer_escapes_every_cell_and_numeric_columns_stay_numeric():
    buffer = io.StringIO()
    writer = csv_writer(buffer)
    writer.writerow(["text", "score"])
    writer.writerows([["=2+5", -0.5], ["fine", 1.25]])
    frame = pd.read_csv(io.StringIO(buffer.getvalue()))
    assert frame["text"].tolist() == ["'=2+5", "fine"]
    assert frame["score"].dtype == float and frame["score"].tolist() == [-0.5, 1.25]


def assert_no_formula_cells(text: str) -> list[list[str]]:
    rows = list(csv.reader(io.StringIO(text)))
    for row in rows:
        for cell in row:
            if cell.startswith(FORMULA_TRIGGERS):
                float(cell)  # only a number may start with + or -
    return rows
