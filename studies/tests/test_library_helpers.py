"""Builders of CHARTOM-layout benchmarks for the library tests (and a check that they read back).

The layout is built by ``benchmark_files``; this module gives it the wording the library
tests check, and the library tests import every builder from here.
"""

from __future__ import annotations

import json
from pathlib import Path

from studies.benchmark_format import read_benchmark
from studies.tests import benchmark_files
from studies.tests.benchmark_files import (
    ChartomStyle,
    csv_text,
    png_bytes,
    png_claiming,
    write_folder,
    zip_bytes,
)

__all__ = [
    "MC_QUESTION",
    "chartom_files",
    "csv_text",
    "fixture_specs",
    "png_bytes",
    "png_claiming",
    "small_files",
    "write_folder",
    "zip_bytes",
]

FIXTURE_SPECS_PATH = Path(__file__).resolve().parents[2] / "fixtures" / "chart_specs.json"


def fixture_specs() -> list[dict]:
    """The demo spec set as plain dicts."""
    return json.loads(FIXTURE_SPECS_PATH.read_text(encoding="utf-8"))


MC_QUESTION = (
    "The following graph shows CD shipments./nWhat is the trend of CD shipments from 2017 to "
    "2020?/n1. It has increased./n2. It has decreased./n3. It stayed the same."
)
RANK_QUESTION = (
    "The figure below shows market share for different companies.\nSort the companies by "
    "market share from largest to smallest."
)
# Options on lines of their own, plain-number keys that differ per question, four-item
# rankings, 24 x 16 images.
STYLE = ChartomStyle(
    multiple_choice_question=MC_QUESTION,
    ranking_question=RANK_QUESTION,
    free_text_key=lambda q: str(1.2 + q / 10),
    ranking_key=lambda q: "A > B > C > D" if q % 2 else "D, C, B, A",
    image_size=(24, 16),
)


def chartom_files(groups=None, questions_per_group=4) -> dict[str, bytes]:
    """{relative path: bytes} of a benchmark in the released layout (56 pairs by default)."""
    return benchmark_files.chartom_files(STYLE, groups, questions_per_group)


def small_files() -> dict[str, bytes]:
    """Three pairs: a free-text bar, a multiple-choice line and a ranking pie."""
    return benchmark_files.small_files(STYLE)


def test_the_builder_makes_a_readable_56_pair_benchmark(tmp_path):
    benchmark = read_benchmark(write_folder(tmp_path / "chartom", chartom_files()))
    assert benchmark.problems == []
    assert len(benchmark.charts) == 112
