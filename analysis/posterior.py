"""One item's posterior under a fitted binary annotator model, for the adaptive queue.

The queue decides whether an item wants another label set when one arrives,
under the item's row lock, so it cannot refit a model on the whole project
then. It reuses the annotators' sensitivity and specificity and the class prior
that the last fit of the project's aggregation method estimated, and computes
the one item's posterior from them: the E-step of Dawid and Skene (1979) for a
single item, with the annotators' parameters held fixed.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence

__all__ = ["DEFAULT_RATES", "label_set_posteriors", "posterior_positive", "vote_share"]

# Rates assumed for an annotator the last fit did not see (a newcomer): better
# than chance and symmetric, so with a prior of 0.5 two agreeing votes settle a
# sentence (posterior 0.94 / 0.06) and a split one stays at 0.5.
DEFAULT_RATES = (0.8, 0.8)
# Keeps a rate of exactly 0 or 1 (a small sample) from making the posterior certain.
_EPS = 1e-6


def _clip(p: float) -> float:
    return min(max(float(p), _EPS), 1 - _EPS)


def posterior_positive(
    votes: Iterable[tuple[Hashable, bool]],
    rates: Mapping[Hashable, tuple[float, float]],
    prior: float,
    default: tuple[float, float] = DEFAULT_RATES,
) -> float:
    """P(truth = positive | votes) for independent annotators with known rates.

    ``votes`` are (annotator, said positive) pairs, ``rates`` maps an annotator
    to (sensitivity, specificity), ``prior`` is P(positive). Bayes' rule with
    conditionally independent annotators (Dawid & Skene 1979, eq. 2.5):

        P(+ | v) = pi * prod_j P(v_j | +) / (pi * prod_j P(v_j | +) + (1 - pi) * prod_j P(v_j | -))

    with P(yes | +) = sensitivity and P(no | -) = specificity. Computed in logs.
    """
    log_pos, log_neg = math.log(_clip(prior)), math.log(1 - _clip(prior))
    for annotator, said in votes:
        sens, spec = (_clip(r) for r in rates.get(annotator, default))
        log_pos += math.log(sens if said else 1 - sens)
        log_neg += math.log(1 - spec if said else spec)
    top = max(log_pos, log_neg)
    pos, neg = math.exp(log_pos - top), math.exp(log_neg - top)
    return pos / (pos + neg)


def vote_share(votes: Iterable[tuple[Hashable, bool]]) -> float:
    """The share of positive votes: majority vote's own measure of certainty (0.5 with none)."""
    said = [bool(v) for _, v in votes]
    return sum(said) / len(said) if said else 0.5


def _rates(fit: Mapping) -> dict:
    rates = {}
    for who, pair in (fit.get("rates") or {}).items():
        sens, spec = (float(x) for x in pair)
        if math.isfinite(sens) and math.isfinite(spec):
            rates[str(who)] = (sens, spec)
    return rates


def label_set_posteriors(
    label_sets: Sequence[tuple[Hashable, Sequence[Iterable[str]]]],
    keys: Sequence[str],
    *,
    method: str,
    estimates: Mapping,
) -> list[float]:
    """P(category applies) per category and sentence of one item, category by category.

    ``label_sets`` are (annotator, one list of category keys per sentence);
    ``estimates`` is ``{"categories": {key: {"prior": p, "rates": {annotator:
    [sensitivity, specificity]}}}}`` from the last fit (annotators as strings).
    Majority vote has no model: its measure is the share of positive votes.
    """
    if not label_sets:
        return []
    fitted = estimates.get("categories", {}) if estimates else {}
    sentences = len(label_sets[0][1])
    marked = [(str(who), [set(s) for s in labels]) for who, labels in label_sets]
    posteriors = []
    for key in keys:
        fit = fitted.get(key) or {}
        rates, prior = _rates(fit), float(fit.get("prior", 0.5))
        for s in range(sentences):
            votes = [(who, key in labels[s]) for who, labels in marked]
            if method == "majority":
                posteriors.append(vote_share(votes))
            else:
                posteriors.append(posterior_positive(votes, rates, prior))
    return posteriors
