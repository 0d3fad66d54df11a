"""CSV from uploads, read strictly, and what to say when it cannot be read.

Python's csv reader, left lenient, takes a quote that is opened and never closed as the
start of one cell that runs to the end of the file: every row after it is lost without
a word. Readers of uploaded CSV pass ``strict=True`` and report the error with
:func:`csv_error_text`.
"""

from __future__ import annotations

import csv


def csv_error_text(exc: csv.Error, line: int | None = None) -> str:
    """csv's complaint, with the line where the row it could not read starts (if known)."""
    where = f" in the row starting on line {line}" if line else ""
    text = f"not valid CSV: {exc}{where}."
    if "unexpected end of data" in str(exc):
        text += f' Look {"there " if line else ""}for a quote (") that is opened but never closed.'
    elif "expected after" in str(exc):
        text += ' A quote inside a quoted cell is written twice ("").'
    return text


def extra_cells(cells: list[str], columns: int) -> bool:
    """Whether a row has cells with text beyond its header's columns: read into no column,
    they would be lost (an unquoted separator splits one cell in two). Empty trailing cells,
    as spreadsheets write them, are not extra; a short row is read with its last cells empty.
    """
    return any(cell.strip() for cell in cells[columns:])


def too_many_cells_text(cells: list[str], columns: int) -> str:
    return (
        f"This row has {len(cells)} cells where the header has {columns} columns: quote a cell "
        "that holds the separator."
    )
