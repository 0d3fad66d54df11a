"""Decoding text files and tidying question texts.

Text files are decoded as UTF-8 (with or without a byte-order mark), as UTF-16
or UTF-32 when they start with that byte-order mark, and otherwise as cp1252,
which is what spreadsheet programs on Windows write by default.
"""

from __future__ import annotations

import codecs

from studies.answers import normalize_line_breaks


def _tidy_question(text: str) -> str:
    text = normalize_line_breaks(text).strip()
    return "\n".join(line.rstrip() for line in text.split("\n"))


def decode_text(data: bytes) -> str:
    """Decode a text file as described in the module docstring; ValueError if impossible."""
    for bom, encoding in (
        (codecs.BOM_UTF8, "utf-8-sig"),
        (codecs.BOM_UTF32_LE, "utf-32"),
        (codecs.BOM_UTF32_BE, "utf-32"),
        (codecs.BOM_UTF16_LE, "utf-16"),
        (codecs.BOM_UTF16_BE, "utf-16"),
    ):
        if data.startswith(bom):
            try:
                return data.decode(encoding)
            except UnicodeDecodeError:
                raise ValueError(
                    f"the file starts as {encoding} but is not valid {encoding}"
                ) from None
    if b"\x00" in data:
        # Without a byte-order mark, NUL bytes mean UTF-16/32 that cp1252 would garble.
        raise ValueError("the file looks like UTF-16 without a byte-order mark; save it as UTF-8")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("cp1252")
    except UnicodeDecodeError:
        raise ValueError(
            "the file is neither UTF-8, UTF-16 nor cp1252 text; save it as UTF-8"
        ) from None
