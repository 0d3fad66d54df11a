"""Builders of small benchmarks in the released CHARTOM layout, as folders or zip archives.

Shared by the format tests (``test_benchmark_format``) and the library tests (through
``test_library_helpers``). Each of them checks its own question texts and answer keys, so
each passes a :class:`ChartomStyle` saying what to write; the layout itself is built here.
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass

from PIL import Image

# Table 1 of the CHARTOM paper: group -> (chart type, answer type, manipulation as released).
TABLE_1 = {
    1: ("line", "free text", "truncated y-axis"),
    2: ("line", "free text", "compressed y-axis"),
    3: ("line", "multiple choice", "inverted y-axis"),
    4: ("line", "multiple choice", "inconsistent x-axis"),
    5: ("scatter", "multiple choice", "logarithmic y-axis"),
    6: ("scatter", "multiple choice", "inverted x-axis"),
    7: ("bar", "free text", "truncated y-axis"),
    8: ("bar", "free text", "compressed y-axis"),
    9: ("line", "multiple choice", "dual axes"),
    10: ("bar", "free text", "pictorial bars"),
    12: ("bar", "multiple choice", "3D effect"),
    13: ("pie", "rank", "3D effect"),
    14: ("pie", "rank", "3D effect + pop out"),
    15: ("map", "multiple choice", "inverted color scale"),
}
# Three pairs: a free-text bar, a multiple-choice line and a ranking pie.
SMALL_GROUPS = {7: TABLE_1[7], 3: TABLE_1[3], 13: TABLE_1[13]}

FREE_QUESTION = (
    "The following graph shows the number of dogs adopted. The dogs adopted in 2018 eat 1 "
    "million bags of dog food in their lifetimes. How much do the dogs adopted in 2019 eat?"
)


@dataclass(frozen=True)
class ChartomStyle:
    """What a test module writes into its benchmarks besides the layout.

    Keys are functions of the question number, so odd and even questions can
    differ (e.g. an option number for one, the option's text for the other).
    """

    multiple_choice_question: str
    ranking_question: str
    free_text_key: Callable[[int], str]
    ranking_key: Callable[[int], str]
    image_size: tuple[int, int]


def png_bytes(color=(200, 30, 30), size=(24, 16)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, color).save(buffer, "PNG")
    return buffer.getvalue()


def png_claiming(width: int, height: int) -> bytes:
    """A tiny PNG whose header claims a canvas it does not contain (a decompression bomb)."""

    def chunk(kind, data):
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\x00" * 16))
        + chunk(b"IEND", b"")
    )


def csv_text(rows) -> str:
    return "".join(",".join(cells) + "\n" for cells in rows)


def chartom_files(style: ChartomStyle, groups=None, questions_per_group=4) -> dict[str, bytes]:
    """{relative path: bytes} of a benchmark in the released layout (56 pairs by default)."""
    groups = TABLE_1 if groups is None else groups
    files: dict[str, bytes] = {}
    keys = [["chart id", "answer type", "answer"]]
    manipulations = [["chart id", "chart type", "planted manipulation"]]
    for group, (chart_type, answer_type, manipulation) in groups.items():
        # The release writes stray spaces around values.
        manipulations.append([f" G{group}_*_2 ", f" {chart_type}", f"{manipulation} "])
        for q in range(1, questions_per_group + 1):
            for version in (1, 2):
                chart_id = f"G{group}_Q{q}_{version}"
                if answer_type == "multiple choice":
                    text, key = (
                        style.multiple_choice_question,
                        "2" if q % 2 else "It has decreased.",
                    )
                elif answer_type == "free text":
                    text, key = FREE_QUESTION, style.free_text_key(q)
                else:
                    text, key = style.ranking_question, style.ranking_key(q)
                files[f"FACT_questions/{chart_id}.txt"] = text.encode()
                files[f"chart_images/{chart_id}.png"] = png_bytes(
                    color=(group * 10 % 256, q * 20 % 256, version * 90), size=style.image_size
                )
                keys.append([chart_id, answer_type, f'"{key}"' if "," in key else key])
    files["FACT_answer_keys.csv"] = csv_text(keys).encode()
    files["chart_manipulations.csv"] = csv_text(manipulations).encode()
    return files


def small_files(style: ChartomStyle) -> dict[str, bytes]:
    """The three pairs of ``SMALL_GROUPS``, one question each."""
    return chartom_files(style, SMALL_GROUPS, questions_per_group=1)


def write_folder(root, files):
    root.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return root


def zip_bytes(files, prefix="") -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in files.items():
            zf.writestr(prefix + name, data)
    return buffer.getvalue()


def write_zip(path, files, prefix=""):
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in files.items():
            zf.writestr(prefix + name, data)
    return path
