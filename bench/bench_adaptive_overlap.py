"""Does adaptive overlap pay? Simulated annotators over the real CHOCOLATE labels as truth.

The released CHOCOLATE labels (../shared/data/chocolate/chocolate.json, 1,183
unique captions, 5,300 sentences, seven error categories) are taken as the
truth. A pool of simulated annotators labels them under three policies:

1. fixed k = 3, majority vote (the papers' procedure);
2. fixed k = 3, Dawid-Skene;
3. adaptive k_min = 2, k_max = 4, Dawid-Skene, the confidence rule.

Annotator model (stated, not fitted): each annotator has, per category, a
sensitivity P(marks it | the sentence has it) and a specificity P(leaves it |
it has not), drawn once per seed. Careful annotators (1 - careless share):
sensitivity U(0.75, 0.95), specificity U(0.97, 0.995). Careless ones: sensitivity
U(0.35, 0.65), specificity U(0.85, 0.95), the kind control items catch. Each
annotator decides every (sentence, category) cell independently. An item's
annotators are distinct members drawn at random, as a queue fed by whoever
asks gives them. Every policy of one seed sees the same annotators and the same
answers (it only uses more or fewer of them), so the comparison is paired.

The adaptive policy runs in rounds, as the queue grows a disputed item one
label set at a time: every item gets k_min; then the project's aggregation
(Dawid-Skene) is fitted on all label sets so far, and each item is asked the
queue's own rule: ``annotation.assignment.strategy.disputed`` with the
posteriors of ``analysis.posterior.label_set_posteriors`` (what
annotation/services/overlap.py computes under the item's lock, with the rates
of the last fit), then ``strategy.wants_more``. A disputed item gets one more.

Figures: label sets spent, and sentence-level accuracy, precision and recall
of "the sentence is non-factual" (any factual error category; grammatical
slips are not factual errors) against the truth, each as the mean over seeds
with a 95% percentile bootstrap interval of that mean.

Seeds are 0, 1, ..., --seeds - 1; each takes about a minute on a shared 2-core machine.
The threshold defaults to the project's (strategy.DEFAULT_THRESHOLD); the README's
figures say which threshold and seeds they come from.

    python bench/bench_adaptive_overlap.py --seeds 10 --threshold 0.4   # the README's table
    python bench/bench_adaptive_overlap.py --seeds 3                     # the project's default, 0.3
    python bench/bench_adaptive_overlap.py --seeds 3 --rule disagreement
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from analysis.aggregation import aggregate_binary  # noqa: E402
from analysis.posterior import label_set_posteriors  # noqa: E402
from annotation.assignment import strategy as rules  # noqa: E402

CHOCOLATE = ROOT.parent / "shared" / "data" / "chocolate" / "chocolate.json"
KEYS = (
    "value_error",
    "label_error",
    "trend_error",
    "magnitude_error",
    "ooc_error",
    "nonsense_error",
    "grammatical_error",
)
FACTUAL = np.array([key != "grammatical_error" for key in KEYS])
SLOTS = 4  # answers simulated per item: the most any policy uses


@dataclass(frozen=True)
class Truth:
    """Sentences of all items in order; ``start[i]:start[i + 1]`` are item i's."""

    cells: np.ndarray  # sentences x categories, bool
    start: np.ndarray

    @property
    def items(self) -> int:
        return len(self.start) - 1

    @property
    def item_of_sentence(self) -> np.ndarray:
        return np.repeat(np.arange(self.items), np.diff(self.start))


def load_truth(path: Path = CHOCOLATE) -> Truth:
    records = {record["_id"]: record for record in json.loads(path.read_text())}
    rows, start = [], [0]
    for record in records.values():
        for labels in record["labels"]:
            rows.append([key in labels for key in KEYS])
        start.append(len(rows))
    return Truth(np.array(rows, dtype=bool), np.array(start))


@dataclass(frozen=True)
class World:
    """One seed: who labels each item (``who[item, slot]``) and what they answer."""

    truth: Truth
    who: np.ndarray  # items x SLOTS annotator numbers
    answers: np.ndarray  # SLOTS x sentences x categories, bool


def simulate(truth: Truth, *, pool: int, careless: float, seed: int) -> World:
    rng = np.random.default_rng(seed)
    sloppy = rng.random(pool) < careless
    shape = (pool, len(KEYS))
    sens = np.where(sloppy[:, None], rng.uniform(0.35, 0.65, shape), rng.uniform(0.75, 0.95, shape))
    spec = np.where(
        sloppy[:, None], rng.uniform(0.85, 0.95, shape), rng.uniform(0.97, 0.995, shape)
    )
    who = np.array([rng.choice(pool, SLOTS, replace=False) for _ in range(truth.items)])
    per_sentence = who[truth.item_of_sentence].T  # SLOTS x sentences
    p_mark = np.where(truth.cells, sens[per_sentence], 1 - spec[per_sentence])
    return World(truth, who, rng.random(p_mark.shape) < p_mark)


def aggregate(world: World, counts: np.ndarray, method: str) -> tuple[np.ndarray, dict]:
    """Aggregated labels (sentences x categories) from each item's first ``counts`` answers.

    Also the fit's estimates in the form the project stores (``overlap_estimates``).
    """
    truth = world.truth
    n_sentences = len(truth.cells)
    per_sentence = counts[truth.item_of_sentence]
    slot, sentence = np.nonzero(np.arange(SLOTS)[:, None] < per_sentence[None, :])
    workers = world.who[truth.item_of_sentence[sentence], slot]
    labels = np.zeros(truth.cells.shape, dtype=bool)
    estimates = {"method": method, "categories": {}}
    for c, key in enumerate(KEYS):
        fit = aggregate_binary(method, sentence, workers, world.answers[slot, sentence, c])
        assert len(fit.tasks) == n_sentences
        labels[:, c] = fit.labels.astype(bool)
        rates = {
            str(w): [float(se), float(sp)]
            for w, se, sp in zip(fit.workers, fit.sensitivity, fit.specificity, strict=True)
        }
        estimates["categories"][key] = {"prior": float(np.mean(fit.p_positive)), "rates": rates}
    return labels, estimates


def item_label_sets(world: World, item: int, count: int) -> list[tuple[str, list[list[str]]]]:
    """An item's first ``count`` label sets as the queue stores them: keys per sentence."""
    lo, hi = world.truth.start[item], world.truth.start[item + 1]
    label_sets = []
    for slot in range(count):
        marks = world.answers[slot, lo:hi]
        labels = [[key for key, on in zip(KEYS, row, strict=True) if on] for row in marks]
        label_sets.append((str(world.who[item, slot]), labels))
    return label_sets


def run_adaptive(world: World, overlap: rules.Overlap, method: str) -> np.ndarray:
    """Label sets per item under the adaptive policy, asking the queue's rule after each round."""
    counts = np.full(world.truth.items, overlap.k_min)
    for _ in range(overlap.k_max - overlap.k_min):
        _, estimates = aggregate(world, counts, method)
        grow = np.zeros_like(counts)
        for item in np.nonzero(counts < overlap.k_max)[0]:
            n = int(counts[item])
            label_sets = item_label_sets(world, item, n)
            posteriors = (
                label_set_posteriors(label_sets, KEYS, method=method, estimates=estimates)
                if overlap.rule == rules.CONFIDENCE
                else ()
            )
            disputed = rules.disputed(overlap, [labels for _, labels in label_sets], posteriors)
            grow[item] = rules.wants_more(overlap, filled=n, submitted=n, disputed=disputed)
        if not grow.any():
            break
        counts = counts + grow
    return counts


def scores(truth: Truth, labels: np.ndarray) -> dict:
    """Accuracy, precision and recall of "non-factual sentence" against the truth."""
    said = (labels & FACTUAL).any(axis=1)
    real = (truth.cells & FACTUAL).any(axis=1)
    tp = int((said & real).sum())
    return {
        "accuracy": float((said == real).mean()),
        "precision": tp / max(int(said.sum()), 1),
        "recall": tp / max(int(real.sum()), 1),
    }


POLICIES = (
    ("1 fixed k=3, majority vote", "fixed", "majority"),
    ("2 fixed k=3, Dawid-Skene", "fixed", "dawid_skene"),
    ("3 adaptive, Dawid-Skene", "adaptive", "dawid_skene"),
)


def one_seed(truth: Truth, args, seed: int) -> dict:
    world = simulate(truth, pool=args.pool, careless=args.careless, seed=seed)
    overlap = rules.Overlap(
        policy=rules.ADAPTIVE,
        k_min=args.k_min,
        k_max=args.k_max,
        rule=args.rule,
        threshold=args.threshold,
    )
    results = {}
    for name, policy, method in POLICIES:
        if policy == "fixed":
            counts = np.full(truth.items, args.k)
        else:
            counts = run_adaptive(world, overlap, method)
        labels, _ = aggregate(world, counts, method)
        results[name] = {"label_sets": int(counts.sum()), **scores(truth, labels)}
    return results


def bootstrap(values, *, reps: int = 2000, seed: int = 0) -> tuple[float, float, float]:
    """Mean over seeds and a 95% percentile bootstrap interval of that mean."""
    values = np.asarray(values, dtype=float)
    rng = np.random.default_rng(seed)
    means = rng.choice(values, (reps, len(values))).mean(axis=1)
    return float(values.mean()), *(float(q) for q in np.percentile(means, [2.5, 97.5]))


def fmt(triple, digits=3) -> str:
    mean, lo, hi = triple
    return f"{mean:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def report(runs: list[dict], truth: Truth) -> None:
    names = [name for name, _, _ in POLICIES]
    print(f"{'policy':30} {'label sets':>24} {'accuracy':>22} {'precision':>22} {'recall':>22}")
    for name in names:
        sets = bootstrap([run[name]["label_sets"] for run in runs])
        row = [fmt(sets, 0)] + [
            fmt(bootstrap([run[name][m] for run in runs]))
            for m in ("accuracy", "precision", "recall")
        ]
        print(f"{name:30} {row[0]:>24} {row[1]:>22} {row[2]:>22} {row[3]:>22}")
    base, adaptive = names[0], names[2]
    saved = bootstrap([1 - run[adaptive]["label_sets"] / run[base]["label_sets"] for run in runs])
    gain = bootstrap([run[adaptive]["accuracy"] - run[base]["accuracy"] for run in runs])
    print(
        f"\npolicy 3 vs 1: label sets saved {fmt(saved)} (share), accuracy difference {fmt(gain)}"
    )
    print(
        f"per item: policy 3 spends {np.mean([r[adaptive]['label_sets'] for r in runs]) / truth.items:.2f} label sets"
    )


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=20, help="simulated pools and answers (20)")
    parser.add_argument("--pool", type=int, default=30, help="annotators in the pool (30)")
    parser.add_argument("--careless", type=float, default=0.2, help="careless share (0.2)")
    parser.add_argument("--k", type=int, default=3, help="fixed k of policies 1 and 2 (3)")
    parser.add_argument("--k-min", type=int, default=2, help="adaptive k_min (2)")
    parser.add_argument("--k-max", type=int, default=4, help="adaptive k_max (4)")
    parser.add_argument(
        "--rule", choices=[rules.CONFIDENCE, rules.DISAGREEMENT], default=rules.DEFAULT_RULE
    )
    parser.add_argument(
        "--threshold",
        type=float,
        default=rules.DEFAULT_THRESHOLD,
        help=f"confidence rule (the project's default, {rules.DEFAULT_THRESHOLD})",
    )
    return parser.parse_args()


def main() -> None:
    args = parse_args()
    truth = load_truth()
    print(
        f"CHOCOLATE truth: {truth.items} captions, {len(truth.cells)} sentences; pool {args.pool}, "
        f"careless {args.careless:.0%}, rule {args.rule} (threshold {args.threshold}), "
        f"k_min {args.k_min}, k_max {args.k_max}; {args.seeds} seeds\n"
    )
    began = time.perf_counter()
    runs = [one_seed(truth, args, seed) for seed in range(args.seeds)]
    report(runs, truth)
    print(f"\n{time.perf_counter() - began:.1f} s")


if __name__ == "__main__":
    main()
