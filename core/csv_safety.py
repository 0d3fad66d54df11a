"""CSV writers that spreadsheets cannot be tricked into running.

A cell such as ``=HYPERLINK("http://evil", "click")`` in a caption, a participant's free
text or a model's justification runs as a formula when a researcher opens the export in
Excel, LibreOffice or Google Sheets. As OWASP recommends ("CSV Injection"), a text cell
that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return gets a leading
apostrophe, which spreadsheets show as text and never evaluate. Numbers stay numbers:
``-0.5`` (a float or the text of one) is left alone, so exported statistics still read
as numeric columns in pandas, R and spreadsheets.

Every CSV the platform writes goes through :func:`csv_writer` or :func:`csv_dict_writer`.
"""

from __future__ import annotations

import csv
import re
from typing import Any

FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
ESCAPE = "'"
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def csv_safe(value: Any) -> Any:
    """The cell as written: text a spreadsheet would evaluate gets a leading apostrophe."""
    if (
        isinstance(value, str)
        and value.startswith(FORMULA_TRIGGERS)
        and not _NUMBER.fullmatch(value)
    ):
        return ESCAPE + value
    return value


def csv_unescape(value: str) -> str:
    """Undo :func:`csv_safe` when reading back a file the platform wrote."""
    if value.startswith(ESCAPE) and value[1:].startswith(FORMULA_TRIGGERS):
        return value[1:]
    return value


class _SafeWriter:
    def __init__(self, writer):
        self._writer = writer

    def writerow(self, row):
        return self._writer.writerow([csv_safe(cell) for cell in row])

    def writerows(self, rows):
        for row in rows:
            self.writerow(row)


class _SafeDictWriter:
    def __init__(self, writer: csv.DictWriter):
        self._writer = writer

    def writeheader(self):
        return self._writer.writeheader()

    def writerow(self, row: dict):
        return self._writer.writerow({key: csv_safe(cell) for key, cell in row.items()})

    def writerows(self, rows):
        for row in rows:
            self.writerow(row)


def csv_writer(buffer, **kwargs) -> _SafeWriter:
    """``csv.writer`` whose every cell goes through :func:`csv_safe`."""
    return _SafeWriter(csv.writer(buffer, **kwargs))


def csv_dict_writer(buffer, fieldnames, **kwargs) -> _SafeDictWriter:
    """``csv.DictWriter`` whose every cell goes through :func:`csv_safe`."""
    return _SafeDictWriter(csv.DictWriter(buffer, fieldnames=fieldnames, **kwargs))
