"""The released CHOCOLATE labels, imported into a project and reported over reference labels.

The import stores the four duplicated records once, so the tables give the
deduplicated counts of ``../shared/data/chocolate/README.md``. The file is
read where CI keeps it; a missing file fails the test instead of skipping it.
"""

from __future__ import annotations

import pytest

from annotation.services import captions_import
from annotation.services.reports import report_compute
from annotation.tests.conftest import CHOCOLATE

pytestmark = pytest.mark.django_db

# Deduplicated counts (factual / non-factual), from the data README.
DEDUPED = {
    "LVLM": {"captions": (74, 320), "sentences": (1680, 1263)},
    "LLM": {"captions": (27, 168), "sentences": (516, 465)},
    "FT": {"captions": (112, 482), "sentences": (357, 1019)},
}


@pytest.fixture
def chocolate_report(project):
    captions_import(project=project, data=CHOCOLATE.read_bytes(), filename="chocolate.json")
    return report_compute(project=project, labels="reference")


def test_reference_labels_give_the_deduplicated_table_10(chocolate_report):
    rows = {row["split"]: row for row in chocolate_report.data["tables"]["factuality"]}
    assert list(rows) == ["LVLM", "LLM", "FT", "all"]
    for split, expected in DEDUPED.items():
        row = rows[split]
        assert (row["factual_captions"], row["nonfactual_captions"]) == expected["captions"]
        assert (row["factual_sentences"], row["nonfactual_sentences"]) == expected["sentences"]
    assert rows["all"]["captions"] == 1183
    assert rows["all"]["sentences"] == 5300
    assert (rows["all"]["factual_captions"], rows["all"]["nonfactual_captions"]) == (213, 970)


def test_the_reference_report_has_tables_5_and_6_and_figure_1(chocolate_report):
    data = chocolate_report.data
    assert data["agreement"] is None  # reference labels are already one per sentence
    sentence_rates = data["tables"]["sentence_rates"]
    assert [r["model"] for r in sentence_rates][::2] == [
        "chartt5", "matcha", "unichart", "deplot", "bard", "gpt4v"
    ]  # fmt: skip
    assert {r["dataset"] for r in sentence_rates} == {"vistext", "pew"}
    for level in ("sentence_rates", "caption_rates"):
        for row in data["tables"][level]:
            assert row["factual"] + row["nonfactual"] == row["total"]
            assert row["factual_rate"] == pytest.approx(row["factual"] / row["total"])
    assert sum(r["total"] for r in data["tables"]["caption_rates"]) == 1183
    assert len(data["tables"]["error_types"]) == 12
    assert "<svg" in chocolate_report.figure_svg and "GPT-4V" in chocolate_report.figure_svg
