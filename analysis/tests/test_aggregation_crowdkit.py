"""Dawid-Skene and MACE against crowd-kit 1.4.2 (a dev-only dependency) to 1e-6."""

import numpy as np
import pandas as pd
import pytest

from analysis.aggregation import aggregate_binary

crowdkit = pytest.importorskip("crowdkit.aggregation")

# crowd-kit 1.4.2 runs on pandas 3 with deprecation warnings by the thousand.
pytestmark = pytest.mark.filterwarnings("ignore::pandas.errors.Pandas4Warning")


def simulated(seed: int, *, n_tasks=80, n_workers=9, spammer=False) -> pd.DataFrame:
    """Workers of spread accuracies, 1 to 4 per task; optionally one who always says 0.

    Rows are sorted by worker then label so that crowd-kit's MACE, which indexes its
    initial draws by order of appearance, sees workers in sorted order and label 0
    first, the order used here.
    """
    rng = np.random.default_rng(seed)
    sensitivity = rng.uniform(0.5, 0.98, n_workers)
    specificity = rng.uniform(0.6, 0.99, n_workers)
    truth = rng.random(n_tasks) < 0.3
    rows = []
    for task in range(n_tasks):
        for worker in rng.choice(n_workers, int(rng.integers(1, 5)), replace=False):
            if truth[task]:
                label = rng.random() < sensitivity[worker]
            else:
                label = rng.random() >= specificity[worker]
            if spammer and worker == n_workers - 1:
                label = False
            rows.append((task, f"w{worker:02d}", int(label)))
    frame = pd.DataFrame(rows, columns=["task", "worker", "label"])
    frame = frame.sort_values(["worker", "label"], kind="stable").reset_index(drop=True)
    assert frame["label"].iloc[0] == 0
    return frame


CASES = [
    pytest.param({"seed": 1}, id="spread"),
    pytest.param({"seed": 2, "n_tasks": 30, "n_workers": 4}, id="few-workers"),
    pytest.param({"seed": 3, "spammer": True}, id="one-answer-spammer"),
    pytest.param({"seed": 4, "n_tasks": 120, "n_workers": 12}, id="larger"),
]


@pytest.mark.parametrize("case", CASES)
def test_dawid_skene_matches_crowdkit(case):
    frame = simulated(**case)
    reference = crowdkit.DawidSkene(n_iter=100, tol=1e-5).fit(frame)
    ours = aggregate_binary("dawid_skene", frame["task"], frame["worker"], frame["label"])
    probas = reference.probas_.sort_index()
    assert probas.index.tolist() == ours.tasks.tolist()
    np.testing.assert_allclose(ours.p_positive, probas[1].to_numpy(), atol=1e-6)
    errors = reference.errors_
    # crowd-kit has no row for an answer a worker never gave: that probability is 0.
    sensitivity = [errors[1].get((w, 1), 0.0) for w in ours.workers]
    specificity = [errors[0].get((w, 0), 0.0) for w in ours.workers]
    np.testing.assert_allclose(ours.sensitivity, sensitivity, atol=1e-6)
    np.testing.assert_allclose(ours.specificity, specificity, atol=1e-6)
    assert ours.labels.tolist() == reference.labels_.sort_index().astype(int).tolist()


@pytest.mark.parametrize("case", CASES)
def test_mace_matches_crowdkit(case):
    frame = simulated(**case)
    # crowd-kit's restarts all reuse random_state, so one restart gives what its
    # default ten give (checked once with ten on these cases), at a tenth of the time.
    reference = crowdkit.MACE(random_state=0, n_restarts=1).fit(frame)
    ours = aggregate_binary("mace", frame["task"], frame["worker"], frame["label"], seed=0)
    probas = reference.probas_.sort_index()
    np.testing.assert_allclose(ours.p_positive, probas[1].to_numpy(), atol=1e-6)
    knows, spams = reference.spamming_[:, 1], reference.spamming_[:, 0]
    np.testing.assert_allclose(ours.sensitivity, knows + spams * reference.thetas_[:, 1], atol=1e-6)
    np.testing.assert_allclose(ours.specificity, knows + spams * reference.thetas_[:, 0], atol=1e-6)


def test_majority_matches_crowdkit_shares():
    frame = simulated(5)
    reference = crowdkit.MajorityVote().fit(frame).probas_.sort_index()
    ours = aggregate_binary("majority", frame["task"], frame["worker"], frame["label"])
    np.testing.assert_allclose(ours.p_positive, reference[1].to_numpy(), atol=1e-12)
