"""The report's per-sentence counts give the same labels, least certain cells and dataset
tables as the frames and records they replace."""

import numpy as np
import pandas as pd
import pytest

from annotation.selectors.agreement import CategoryInfo, submission_order
from annotation.services.reports.counts import SentenceLabels, sentence_code
from annotation.services.reports.estimates import UNCERTAIN_ROWS, _least_certain
from annotation.services.reports.tables import (
    labelled_sentences,
    record_sentences,
    sentence_tables,
)

CATEGORIES = [
    CategoryInfo("value_error", "Value error", True),
    CategoryInfo("grammatical_error", "Grammatical error", False),
    CategoryInfo("trend_error", "Trend error", True),
]
KEYS = [c.key for c in CATEGORIES]


def _labels(cells: dict[tuple[int, int], list[bool]]) -> SentenceLabels:
    """Labels of the (item, sentence) cells given, p_positive 0.9 where marked."""
    keys = sorted(cells)
    value = np.array([cells[key] for key in keys], dtype=bool)
    code = sentence_code(np.array([k[0] for k in keys]), np.array([k[1] for k in keys]))
    return SentenceLabels(KEYS, code, value, np.where(value, 0.9, 0.1))


# Project order 9, 5, 7, 2, 4. Item 9: all three sentences. Item 5: sentence 1 has no
# label (it reads as unmarked). Item 7: labels for two of its three sentences, so it is left
# out. Item 2: no labels. Item 4 shares model m1 with item 9 under another split: the last
# record's split wins for the model, as in the records' split map.
SHAPES = [
    (9, "c9", 3, "m1", "pew", "LVLM"),
    (5, "c5", 3, "m2", "vistext", "FT"),
    (7, "c7", 3, "m2", "pew", "FT"),
    (2, "c2", 1, "m1", "pew", "LVLM"),
    (4, "c4", 2, "m1", "vistext", "LLM"),
]
CELLS = {
    (9, 0): [True, False, False],
    (9, 1): [False, True, False],
    (9, 2): [False, False, False],
    (5, 0): [False, False, True],
    (5, 2): [True, True, False],
    (7, 0): [True, False, False],
    (7, 1): [False, False, False],
    (4, 0): [False, True, False],
    (4, 1): [False, False, False],
}


def _records() -> list[dict]:
    """What labelled_records makes of the same labels: CHOCOLATE-style records."""
    records = []
    for pk, external_id, count, model, dataset, split in SHAPES:
        sentences = [s for (item, s) in CELLS if item == pk]
        if not sentences or max(sentences) + 1 != count:
            continue
        labels = [
            [
                key
                for key, marked in zip(KEYS, CELLS.get((pk, s), [False] * 3), strict=True)
                if marked
            ]
            for s in range(count)
        ]
        records.append(
            {
                "_id": external_id,
                "sentences": [f"Sentence {s}." for s in range(count)],
                "labels": labels,
                "model": model,
                "dataset": dataset,
                "split": split,
            }
        )
    return records


def test_sentences_from_labels_equal_the_sentence_frame_of_the_records():
    from_records = record_sentences(_records(), CATEGORIES).drop(columns="text")
    from_labels = labelled_sentences(SHAPES, _labels(CELLS), CATEGORIES)

    assert list(from_labels.columns) == list(from_records.columns)
    for column in from_records.columns:
        assert from_labels[column].tolist() == from_records[column].tolist(), column
    assert from_labels["item"].tolist() == ["c9"] * 3 + ["c5"] * 3 + ["c4"] * 2
    assert set(from_labels["split"]) == {"LLM", "FT"}  # m1's split is item 4's
    assert sentence_tables(from_labels, CATEGORIES) == sentence_tables(from_records, CATEGORIES)


def test_no_item_whose_labels_fit_gives_no_sentences():
    assert labelled_sentences(SHAPES[2:3], _labels(CELLS), CATEGORIES) is None
    assert sentence_tables(None, CATEGORIES) == (None, "")


def _frame_least_certain(frame: pd.DataFrame) -> pd.DataFrame:
    """The least certain rows ranked over the whole long frame, as the report did."""
    order = {key: j for j, key in enumerate(KEYS)}
    distance = np.abs(frame["p_positive"].to_numpy(dtype=float) - 0.5)
    ranked = np.lexsort(
        (
            frame["category"].map(order).to_numpy(),
            frame["sentence"].to_numpy(),
            frame["item"].to_numpy(),
            np.round(distance, 12),
        )
    )
    return frame.iloc[ranked[:UNCERTAIN_ROWS]].reset_index(drop=True)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_least_certain_cells_are_those_of_the_long_frame_ties_included(seed):
    rng = np.random.default_rng(seed)
    rows = [
        (item, sentence, key, bool(rng.random() < 0.5), rng.choice([0.0, 1 / 3, 0.5, 2 / 3]))
        for item in (3, 8, 11, 20)
        for sentence in range(int(rng.integers(1, 6)))
        for key in KEYS
    ]
    frame = pd.DataFrame(rows, columns=["item", "sentence", "category", "value", "p_positive"])

    found = _least_certain(SentenceLabels.from_frame(frame, KEYS))

    expected = _frame_least_certain(frame)
    assert len(found) == min(UNCERTAIN_ROWS, len(frame))
    assert found.values.tolist() == expected.values.tolist()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_label_sets_read_in_any_order_are_put_in_submission_order(seed):
    rng = np.random.default_rng(seed)
    ids = rng.permutation(50)[:20].astype(np.int64)
    lengths = rng.integers(0, 5, size=20).astype(np.int64)
    rows = [(pk, n) for pk, length in zip(ids, lengths, strict=True) for n in range(length)]

    order, row_order = submission_order(ids, lengths)

    assert ids[order].tolist() == sorted(ids.tolist())
    assert [rows[j] for j in row_order] == sorted(rows)


def test_a_sentence_code_sorts_as_its_item_and_sentence_and_gives_them_back():
    rng = np.random.default_rng(3)
    item = rng.integers(1, 2**40, size=500)
    sentence = rng.integers(0, 2**20, size=500)
    code = sentence_code(item, sentence)
    by_pair = np.lexsort((sentence, item))
    assert np.array_equal(np.argsort(code, kind="stable"), by_pair)
    labels = SentenceLabels(KEYS, code, np.zeros((500, 3), dtype=bool), np.zeros((500, 3)))
    assert np.array_equal(labels.item, item) and np.array_equal(labels.sentence, sentence)
