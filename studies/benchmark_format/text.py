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


# What an upload most often is when it is not the text file asked for.
BINARY_SIGNATURES = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"%PDF", "a PDF document"),
    (b"PK\x03\x04", "a zip archive (an .xlsx or .docx is one too)"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"\xd0\xcf\x11\xe0", "an old Office document (.xls or .doc)"),
)


def _looks_like_utf16(data: bytes) -> bool:
    """Text in UTF-16 without a byte-order mark: in its Latin letters every other byte is NUL."""
    head = data[:400]
    if len(head) < 2:
        return False
    even = head[0::2].count(0) / len(head[0::2])
    odd = head[1::2].count(0) / max(1, len(head[1::2]))
    return max(even, odd) > 0.6 and min(even, odd) < 0.1


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
    for signature, kind in BINARY_SIGNATURES:
        if data.startswith(signature):
            raise ValueError(f"the file is {kind}, not text; upload the text file itself")
    if b"\x00" in data:
        if _looks_like_utf16(data):
            # NUL bytes between the letters: UTF-16 text that cp1252 would garble.
            raise ValueError(
                "the file looks like UTF-16 without a byte-order mark; save it as UTF-8"
            )
        raise ValueError("the file holds binary data, not text; upload the text file itself")
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
