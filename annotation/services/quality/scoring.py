"""Scoring an annotator's labels against gold over (sentence, category) decisions. No Django.

Every sentence x category pair is one yes/no decision. Accuracy is the share of
decisions that match gold. F1 treats "this sentence has this error" as the
positive class: precision = TP / (TP + FP), recall = TP / (TP + FN),
F1 = 2PR / (P + R) = 2TP / (2TP + FP + FN). When neither gold nor the annotator
marks any error there is nothing to find and nothing was wrongly found, so F1 is
1.0 (the usual convention for an empty positive class); when only one side marks
errors it is 0.0. Several items pool their decisions (micro-averaging), so a
round of two captions is scored as one long caption.
"""

from __future__ import annotations

from dataclasses import dataclass

# The control rate is part of the assignment rule (its home); its tests import it from here.


@dataclass(frozen=True)
class Score:
    decisions: int
    agree: int
    tp: int
    fp: int
    fn: int

    @property
    def accuracy(self) -> float:
        return self.agree / self.decisions if self.decisions else 1.0

    @property
    def f1(self) -> float:
        if self.tp + self.fp + self.fn == 0:
            return 1.0
        return 2 * self.tp / (2 * self.tp + self.fp + self.fn)

    def value(self, rule: str) -> float:
        return self.f1 if rule == "f1" else self.accuracy

    def __add__(self, other: Score) -> Score:
        return Score(
            self.decisions + other.decisions,
            self.agree + other.agree,
            self.tp + other.tp,
            self.fp + other.fp,
            self.fn + other.fn,
        )


EMPTY = Score(0, 0, 0, 0, 0)


def score_labels(answer, gold, keys) -> Score:
    """Compare one item's labels (a list of key lists per sentence) with gold over ``keys``."""
    if len(answer) != len(gold):
        raise ValueError("The answer and gold have different numbers of sentences.")
    tp = fp = fn = agree = 0
    for mine, truth in zip(answer, gold, strict=True):
        mine, truth = set(mine), set(truth)
        for key in keys:
            a, g = key in mine, key in truth
            if a and g:
                tp += 1
            elif a:
                fp += 1
            elif g:
                fn += 1
            agree += a == g
    return Score(len(gold) * len(keys), agree, tp, fp, fn)


def score_many(pairs, keys) -> Score:
    """Pooled score over several (answer, gold) pairs."""
    total = EMPTY
    for answer, gold in pairs:
        total = total + score_labels(answer, gold, keys)
    return total
