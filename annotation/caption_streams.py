"""Reading a caption file piece by piece, so an 85 MB upload never sits in memory whole.

Text is decoded in chunks (a CHOCOLATE JSON file is often a single line), JSON lists are
read one element at a time, CSV line by line. Each reader reports the first problem that
ends the file (bad UTF-8, broken JSON) the way a whole-file read would: with its line and
column. No Django import.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterator
from typing import BinaryIO

from core import json_input

CHUNK = 1 << 20  # 1 MiB of the file at a time
# A JSON error this close to the end of what was read may just be a cut-off value: read on.
_CUT_OFF_MARGIN = 64
# Line ends only: a pattern for whole lines ("[^\r\n]*" then an end) retried from every
# character of a long line without one, which took minutes for a 100 KB caption, with
# the regex engine holding the interpreter lock so that every request of the process
# waited. Searching for the ends alone is linear.
_LINE_END = re.compile(r"\r\n|\r|\n")


class StreamProblem(Exception):
    """The rest of the file cannot be read: ``field`` and ``reason`` as a file-level problem."""

    def __init__(self, field: str, reason: str):
        super().__init__(reason)
        self.field = field
        self.reason = reason


def not_utf8_reason(byte: int, where: str) -> str:
    return (
        f"not UTF-8 text: byte 0x{byte:02x} in {where}. Save the file as UTF-8 and import it again."
    )


def text_chunks(source: BinaryIO, size: int | None = None) -> Iterator[str]:
    """The file as UTF-8 text (a leading BOM dropped), in chunks; bad bytes name their line."""
    size = size or CHUNK
    decoder = codecs.getincrementaldecoder("utf-8-sig")()
    lines_before = 0
    while True:
        raw = source.read(size)
        final = not raw
        try:
            text = decoder.decode(raw, final=final)
        except UnicodeDecodeError as exc:
            # exc.object is what the decoder held over from the last chunk plus this one;
            # the held-over bytes are part of one character, never a line break.
            line = lines_before + exc.object[: exc.start].count(b"\n") + 1
            raise StreamProblem(
                "encoding", not_utf8_reason(exc.object[exc.start], f"line {line}")
            ) from None
        if text:
            lines_before += text.count("\n")
            yield text
        if final:
            return


def text_lines(chunks: Iterator[str]) -> Iterator[str]:
    """Lines with their endings (\\n, \\r\\n or \\r), as ``open(newline="")`` gives them to csv."""
    parts: list[str] = []  # the line so far, when it runs over several chunks
    held = ""  # a \r that ended the last chunk: it may be the first half of \r\n
    for chunk in chunks:
        chunk, held = held + chunk, ""
        if chunk.endswith("\r"):
            chunk, held = chunk[:-1], "\r"
        start = 0
        for match in _LINE_END.finditer(chunk):
            parts.append(chunk[start : match.end()])
            yield "".join(parts)
            parts.clear()
            start = match.end()
        if start < len(chunk):
            parts.append(chunk[start:])
    if parts or held:
        yield "".join(parts) + held


def json_list_items(chunks: Iterator[str]) -> Iterator[object]:
    """The elements of a JSON list, one at a time. Raises :class:`StreamProblem` when the
    text is not JSON (with its line and column) or not a list."""
    reader = _JsonReader(chunks)
    if reader.next_char() != "[":
        reader.whole_value_problem()
    reader.pos += 1
    first = True
    while True:
        char = reader.next_char()
        if char == "]":
            reader.pos += 1
            if reader.next_char() != "":
                reader.fail("Extra data")
            return
        if not first:
            if char != ",":
                reader.fail("Expecting ',' delimiter")
            reader.pos += 1
            reader.next_char()
        first = False
        yield reader.value()


class _JsonReader:
    """A window on the text with the line and column where it starts, for error messages."""

    def __init__(self, chunks: Iterator[str]):
        self.chunks = chunks
        self.buffer = ""
        self.pos = 0
        self.line = 1  # line and 1-based column of buffer[0]
        self.column = 1
        self.done = False
        self.decoder = json.JSONDecoder()

    def more(self) -> bool:
        if self.done:
            return False
        chunk = next(self.chunks, None)
        if chunk is None:
            self.done = True
            return False
        if self.pos > CHUNK:  # drop what was read, keeping track of where the rest starts
            consumed = self.buffer[: self.pos]
            breaks = consumed.count("\n")
            if breaks:
                self.line += breaks
                self.column = len(consumed) - consumed.rfind("\n")
            else:
                self.column += len(consumed)
            self.buffer = self.buffer[self.pos :]
            self.pos = 0
        self.buffer += chunk
        return True

    def next_char(self) -> str:
        """The next character that is not white space ("" at the end), without taking it."""
        while True:
            while self.pos < len(self.buffer) and self.buffer[self.pos] in " \t\r\n":
                self.pos += 1
            if self.pos < len(self.buffer) or not self.more():
                return self.buffer[self.pos : self.pos + 1]

    def value(self) -> object:
        while True:
            try:
                value, end = self.decoder.raw_decode(self.buffer, self.pos)
            except json.JSONDecodeError as exc:
                cut_off = exc.pos >= len(self.buffer) - _CUT_OFF_MARGIN or exc.msg.startswith(
                    "Unterminated string"
                )
                if cut_off and self.more():
                    continue
                self.fail(exc.msg, exc.pos)
            except RecursionError:  # core/json_input.py says why
                self.fail(json_input.TOO_DEEP)
            except ValueError as exc:  # an int longer than Python reads (core/json_input.py)
                self.fail(json_input.TOO_MANY_DIGITS if "integer" in str(exc) else str(exc))
            if json_input.holds_lone_surrogate(value):
                self.fail(json_input.LONE_SURROGATE)
            # A number near the end of what was read may go on in the next chunk ("1." + "5").
            number = isinstance(value, int | float) and not isinstance(value, bool)
            if number and end >= len(self.buffer) - _CUT_OFF_MARGIN and self.more():
                continue
            self.pos = end
            return value

    def whole_value_problem(self) -> None:
        """The file does not start a list: say whether it is JSON at all."""
        if self.next_char() == "":
            self.fail("Expecting value")
        self.value()  # raises when the first value is not JSON
        raise StreamProblem("json", "CHOCOLATE JSON is a list of records ([{...}, ...]).")

    def fail(self, message: str, pos: int | None = None) -> None:
        pos = self.pos if pos is None else pos
        before = self.buffer[:pos]
        breaks = before.count("\n")
        line = self.line + breaks
        column = (pos - before.rfind("\n")) if breaks else self.column + pos
        raise StreamProblem("json", f"not valid JSON: {message} at line {line}, column {column}.")


def binary_lines(source: BinaryIO) -> Iterator[bytes]:
    """The file's lines as bytes (JSON Lines: one record a line, decoded one by one)."""
    return iter(source.readline, b"")
