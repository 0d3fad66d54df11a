"""What the benchmark-format tests share: the CHARTOM style they write and problem lookups."""

from studies.tests import benchmark_files
from studies.tests.benchmark_files import (
    TABLE_1,
    ChartomStyle,
)

# The registered answer types' keys (studies.answer_types).
MULTIPLE_CHOICE, FREE_TEXT, RANKING = "multiple_choice", "free_text", "ranking"

MC_QUESTION = (
    "The following graph shows CD shipments. What is the trend of CD shipments "
    "from 2017 to 2020? 1. It has increased. 2. It has decreased. 3. It stayed the same."
)
RANK_QUESTION = (
    "The figure below shows market share for different companies./nSort companies by market "
    "share from largest (1) to smallest (5)."
)
# Options inline in the question, keys with a scale word, five-item rankings, 4 x 3 images.
STYLE = ChartomStyle(
    multiple_choice_question=MC_QUESTION,
    ranking_question=RANK_QUESTION,
    free_text_key=lambda q: "1.2 million" if q % 2 else "1.2",
    ranking_key=lambda q: "A > B > C > D > E" if q % 2 else "A, B, C, D, E",
    image_size=(4, 3),
)


def chartom_files(groups=TABLE_1, questions_per_group=4):
    """{relative path: bytes} of a benchmark in the released layout."""
    return benchmark_files.chartom_files(STYLE, groups, questions_per_group)


def small_files():
    return benchmark_files.small_files(STYLE)


def messages(benchmark):
    return [str(p) for p in benchmark.problems]


def has_problem(benchmark, file_part, text, row=...):
    return any(
        file_part in p.file and text in p.message and (row is ... or p.row == row)
        for p in benchmark.problems
    )
