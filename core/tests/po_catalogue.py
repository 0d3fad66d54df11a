"""A small reader for gettext .po catalogues: enough for the tests that check the shipped
translations are complete, without a dependency for it."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Entry:
    msgid: str = ""
    msgid_plural: str = ""
    msgctxt: str = ""
    msgstr: dict[int, str] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)
    obsolete: bool = False

    @property
    def translated(self) -> bool:
        return bool(self.msgstr) and all(self.msgstr.values())


def _unquote(text: str) -> str:
    return ast.literal_eval(text) if text else ""


def read_po(path: Path) -> list[Entry]:
    """The catalogue's entries, the header (empty msgid) left out."""
    entries: list[Entry] = []
    entry, key = Entry(), None

    def close():
        nonlocal entry, key
        if entry.msgid or entry.msgstr:
            entries.append(entry)
        entry, key = Entry(), None

    for raw in Path(path).read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line:
            close()
        elif line.startswith("#~"):
            entry.obsolete = True
        elif line.startswith("#,"):
            entry.flags |= {flag.strip() for flag in line[2:].split(",")}
        elif line.startswith("#"):
            continue
        elif line.startswith('"'):
            _append(entry, key, _unquote(line))
        else:
            keyword, _sep, rest = line.partition(" ")
            key = keyword
            _append(entry, key, _unquote(rest.strip()), start=True)
    close()
    return [e for e in entries if e.msgid and not e.obsolete]


def _append(entry: Entry, key: str | None, text: str, *, start: bool = False) -> None:
    if key in ("msgid", "msgid_plural", "msgctxt"):
        setattr(entry, key, ("" if start else getattr(entry, key)) + text)
    elif key and key.startswith("msgstr"):
        index = int(key[7:-1]) if key.startswith("msgstr[") else 0
        entry.msgstr[index] = ("" if start else entry.msgstr.get(index, "")) + text
