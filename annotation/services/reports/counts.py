"""Per-sentence counts of the annotators' decisions, and the labels aggregated from them.

A report of 100,000 sentences x 7 categories x 3 annotators is counted once into a
sentences x categories matrix (how many annotators marked each category of each
sentence) beside how many rated the sentence. The agreement statistics, majority vote,
the least certain labels and the dataset tables all read these few arrays: no long frame
of one row per (sentence, category), and no label lists per item.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from analysis.arrays import has_duplicates
from analysis.captions import TIE_RULES
from annotation.selectors.agreement import LabelDecisions

if TYPE_CHECKING:
    import pandas as pd

# Sentence indexes fit in 20 bits (a caption of a million sentences is no caption).
SENTENCE_BITS = 20
SENTENCE_MASK = (1 << SENTENCE_BITS) - 1


def sentence_code(item: np.ndarray, sentence: np.ndarray) -> np.ndarray:
    """One int64 per (item, sentence) that sorts as the pair does."""
    return (np.asarray(item, dtype=np.int64) << SENTENCE_BITS) | sentence


class _SentenceCoded:
    """Rows named by ``code`` (:func:`sentence_code`): their item and sentence."""

    code: np.ndarray

    @property
    def item(self) -> np.ndarray:
        return self.code >> SENTENCE_BITS

    @property
    def sentence(self) -> np.ndarray:
        return self.code & SENTENCE_MASK


@dataclass
class SentenceLabels(_SentenceCoded):
    """Aggregated labels: per sentence (``code`` ascending, see :func:`sentence_code`) and
    category (in ``categories`` order), the label and P(label = 1)."""

    categories: list[str]
    code: np.ndarray
    value: np.ndarray
    p_positive: np.ndarray

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, categories: list[str]) -> SentenceLabels:
        """From a method's frame (item, sentence, category, value, p_positive); a cell the frame
        lacks is unlabelled, with P(label = 1) NaN."""
        code = sentence_code(frame["item"].to_numpy(), frame["sentence"].to_numpy())
        codes, row = np.unique(code, return_inverse=True)
        column = frame["category"].map({key: j for j, key in enumerate(categories)}).to_numpy()
        known = ~np.isnan(column.astype(float))
        row, column = row.reshape(-1)[known], column[known].astype(np.int64)
        value = np.zeros((len(codes), len(categories)), dtype=bool)
        p_positive = np.full(value.shape, np.nan)
        value[row, column] = frame["value"].to_numpy(dtype=bool)[known]
        p_positive[row, column] = frame["p_positive"].to_numpy(dtype=float)[known]
        return cls(categories, codes, value, p_positive)


@dataclass
class SentenceCounts(_SentenceCoded):
    """For each rated sentence (``code`` ascending): ``n_raters`` who rated it and, per
    category, ``n_positive`` who marked it. ``row`` maps each row of the decisions to its
    sentence."""

    categories: list[str]
    code: np.ndarray
    row: np.ndarray
    n_raters: np.ndarray
    n_positive: np.ndarray

    def __len__(self) -> int:
        return len(self.code)

    def per_sentence(self, marks: np.ndarray) -> np.ndarray:
        """How many of each sentence's raters said yes, for one yes/no per decisions row."""
        return np.bincount(self.row, weights=marks, minlength=len(self)).astype(np.int64)

    def majority(self, tie: str) -> np.ndarray:
        """Majority vote per sentence and category (``analysis.captions.majority_vote``'s rule):
        a strict majority marks it; ``tie="positive"`` also marks half against half."""
        if tie not in TIE_RULES:
            raise ValueError(f"unknown tie rule {tie!r}; use 'negative' or 'positive'")
        twice = 2 * self.n_positive
        raters = self.n_raters[:, np.newaxis]
        return twice > raters if tie == "negative" else twice >= raters

    def labels(self, tie: str) -> SentenceLabels:
        """Majority labels, with P(label = 1) the share of annotators who marked it."""
        return SentenceLabels(
            self.categories,
            self.code,
            self.majority(tie),
            self.n_positive / self.n_raters[:, np.newaxis],
        )

    def votes(self, tie: str, *, item_dtype, sentence_dtype) -> pd.DataFrame:
        """The long frame ``majority_vote`` gives: one row per (sentence, category)."""
        import pandas as pd

        width = len(self.categories)
        return pd.DataFrame(
            {
                "item": np.repeat(self.item, width).astype(item_dtype),
                "sentence": np.repeat(self.sentence, width).astype(sentence_dtype),
                "category": pd.Categorical.from_codes(
                    np.tile(np.arange(width, dtype=np.int16), len(self)),
                    categories=self.categories,
                ),
                "value": self.majority(tie).reshape(-1),
                "n_raters": np.repeat(self.n_raters, width).astype(np.int64),
                "n_positive": self.n_positive.reshape(-1),
            }
        )


def sentence_counts(decisions: LabelDecisions) -> SentenceCounts | None:
    """The decisions counted per sentence; None when counts cannot stand for them (a rater
    twice on a sentence, a negative rater id), which ``majority_vote`` then reports."""
    code = sentence_code(decisions.item, decisions.sentence)
    codes, row = np.unique(code, return_inverse=True)
    row = row.reshape(-1)
    pairs = row.astype(np.int64) * (int(decisions.rater.max()) + 1) + decisions.rater
    if decisions.rater.min() < 0 or has_duplicates(pairs):
        return None
    n_positive = np.empty((len(codes), len(decisions.categories)), dtype=np.int64)
    for j in range(len(decisions.categories)):
        n_positive[:, j] = np.bincount(row, weights=decisions.marks[:, j], minlength=len(codes))
    return SentenceCounts(
        decisions.categories, codes, row, np.bincount(row, minlength=len(codes)), n_positive
    )
