"""Does stopping at a target precision pay? A fixed 68-participant design vs the precision rule.

Simulates CHARTOM-like studies (the paper's 14 groups, 4 questions each, both versions: 112
charts) whose true chart HMIs are the paper's Table 1 group means, with participants whose
errors correlate across charts (a random ability, as in analysis.simulate). For each seed it
runs the fixed design (68 included participants, as CHARTOM) and the precision stopping rule
at the same worst-case precision (every chart's 95% Wilson half-width at most that of 68
participants at HMI 0.5, between --min and --max included), and prints participants used,
cost, the largest half-width and the coverage of the true HMIs by the reported intervals.
Two more rows show the same with question-level spread around the group means, and with only
the groups whose HMIs are far from 0.5. No database needed.

    python bench/bench_planner.py                # 1000 seeds per row
    python bench/bench_planner.py --seeds 200    # quicker
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy.special import expit, logit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from analysis.planning import recruit_for, wilson_half_width  # noqa: E402
from analysis.simulate import chartom_groups  # noqa: E402
from analysis.stopping import simulate_precision_stopping  # noqa: E402

FIXED_N = 68
EXCLUSION_RATE = 10 / 78  # CHARTOM: 78 recruited, 10 excluded


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=1000, help="simulated studies per row (1000)")
    parser.add_argument("--min", type=int, default=20, help="minimum included (20)")
    parser.add_argument("--max", type=int, default=200, help="maximum included (200)")
    parser.add_argument("--pay", type=float, default=5.0, help="pay per participant (5.00)")
    return parser.parse_args()


def table_1_truth(groups=None) -> tuple[np.ndarray, np.ndarray]:
    """(true HMI per chart, group index per chart): 4 questions x 2 versions per group."""
    table = chartom_groups()
    if groups:
        table = table[table["group"].isin(groups)]
    per_chart, owner = [], []
    for i, row in enumerate(table.itertuples()):
        for _question in range(4):
            per_chart += [row.hmi_non_manipulated, row.hmi_manipulated]
            owner += [i, i]
    return np.array(per_chart), np.array(owner)


def run_fixed(truth, args, target) -> dict:
    return simulate_precision_stopping(
        truth, target=target, min_n=args.min, max_n=args.max, seeds=args.seeds, fixed_n=FIXED_N
    )


def run(truth_for_seed, args, target) -> dict:
    keys = ("n_used", "max_half_width", "coverage", "fixed_max_half_width", "fixed_coverage")
    pooled = {key: [] for key in keys}
    for seed in range(args.seeds):
        one = simulate_precision_stopping(
            truth_for_seed(seed), target=target, min_n=args.min, max_n=args.max,
            seeds=1, fixed_n=FIXED_N, seed=seed,
        )  # fmt: skip
        for key in keys:
            pooled[key].append(float(one[key][0]))
    return {key: np.array(values) for key, values in pooled.items()}


def report(name: str, result: dict, args) -> None:
    used = result["n_used"]
    fixed_cost = recruit_for(FIXED_N, EXCLUSION_RATE) * args.pay
    rule_cost = np.mean([recruit_for(int(n), EXCLUSION_RATE) for n in used]) * args.pay
    saving = 1 - used.mean() / FIXED_N
    print(f"\n{name}")
    print(f"  {'design':<16}{'included (5-95%)':>20}{'cost':>10}{'widest ±':>20}{'coverage':>10}")
    print(
        f"  {'fixed 68':<16}{FIXED_N:>20}{fixed_cost:>10.0f}"
        f"{result['fixed_max_half_width'].mean():>12.4f} (max {result['fixed_max_half_width'].max():.3f})"
        f"{result['fixed_coverage'].mean():>10.4f}"
    )
    spread = f"{used.mean():.1f} ({np.percentile(used, 5):.0f}-{np.percentile(used, 95):.0f})"
    print(
        f"  {'precision rule':<16}{spread:>20}{rule_cost:>10.0f}"
        f"{result['max_half_width'].mean():>12.4f} (max {result['max_half_width'].max():.3f})"
        f"{result['coverage'].mean():>10.4f}"
    )
    verdict = "meets" if result["coverage"].mean() >= 0.94 else "FAILS"
    print(f"  coverage of the rule's intervals {verdict} the 0.94 floor")
    print(
        f"  saving: {saving:.1%} of included participants, {1 - rule_cost / fixed_cost:.1%} of cost"
    )


def main():
    args = parse_args()
    target = wilson_half_width(FIXED_N, 0.5)
    print(
        f"{args.seeds} simulated studies per row; target ±{target:.4f} (68 at HMI 0.5); "
        f"min {args.min}, max {args.max}; pay {args.pay:.2f}, recruits = included / "
        f"(1 - {EXCLUSION_RATE:.3f})"
    )
    started = time.perf_counter()
    exact, _ = table_1_truth()
    report("Table 1 HMIs, 14 groups, 112 charts", run_fixed(exact, args, target), args)

    base, owner = table_1_truth()
    question = np.repeat(np.arange(len(base) // 2), 2)  # both versions share the question

    def spread(seed):
        effects = np.random.default_rng(10**6 + seed).normal(0, 0.5, len(base) // 2)
        return expit(logit(base) + effects[question])

    report("Table 1 group means, question spread sd 0.5 (logit)", run(spread, args, target), args)
    far, _ = table_1_truth(["G3", "G4", "G5", "G6", "G15"])
    report("Only G3 G4 G5 G6 G15 (no chart near 0.5)", run_fixed(far, args, target), args)
    print(f"\n{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
