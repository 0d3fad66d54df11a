"""Aggregation on hand-worked cases, and majority vote against the report's own rule."""

import numpy as np
import pandas as pd
import pytest

from analysis.aggregation import METHODS, aggregate_binary, encode
from analysis.aggregation import dawid_skene as ds_module
from analysis.aggregation import mace as mace_module
from analysis.captions import majority_vote

# Three workers on three sentences:   a  b  c
#                           task 0:   1  1  0
#                           task 1:   0  0  0
#                           task 2:   1  0  1
SMALL = {
    "task_ids": [0, 0, 0, 1, 1, 1, 2, 2, 2],
    "worker_ids": ["a", "b", "c"] * 3,
    "labels": [1, 1, 0, 0, 0, 0, 1, 0, 1],
}


def test_registry_lists_the_three_methods():
    assert list(METHODS) == ["majority", "dawid_skene", "mace"]


@pytest.mark.parametrize("tie", ["negative", "positive"])
def test_majority_matches_the_reports_majority_vote(tie):
    rng = np.random.default_rng(7)
    rows = [
        (item, rater, bool(rng.integers(0, 2)))
        for item in range(40)
        for rater in rng.choice(6, size=int(rng.integers(1, 5)), replace=False)
    ]
    frame = pd.DataFrame(rows, columns=["item", "rater", "value"])
    expected = majority_vote(frame.assign(sentence=0, category="x"), tie=tie)
    result = aggregate_binary(
        "majority", frame["item"], frame["rater"], frame["value"].astype(int), tie=tie
    )
    assert result.tasks.tolist() == expected["item"].tolist()
    assert result.labels.tolist() == expected["value"].astype(int).tolist()
    share = expected["n_positive"] / expected["n_raters"]
    np.testing.assert_allclose(result.p_positive, share.to_numpy())
    assert np.isnan(result.sensitivity).all() and np.isnan(result.specificity).all()


def test_majority_tie_rule_decides_a_split():
    args = ([0, 0, 1, 1], ["a", "b", "a", "b"], [1, 0, 1, 1])
    assert aggregate_binary("majority", *args).labels.tolist() == [0, 1]
    assert aggregate_binary("majority", *args, tie="positive").labels.tolist() == [1, 1]


def test_dawid_skene_first_m_step_by_hand():
    # From the majority shares (2/3, 0, 2/3), worker a's answers put truth 0 at
    # 1/3 + 1 + 1/3: a said 0 on 1 of 5/3, so specificity 3/5; truth 1 only where
    # a said 1, so sensitivity 1. Workers b and c: sensitivity 1/2, specificity 4/5.
    data = encode(**SMALL)
    initial = np.array([2 / 3, 0.0, 2 / 3])
    observed = np.ones((3, 2), dtype=bool)
    errors = ds_module._m_step(data, np.column_stack([1 - initial, initial]), observed)
    np.testing.assert_allclose(errors[:, 1, 1], [1, 1 / 2, 1 / 2], atol=1e-9)
    np.testing.assert_allclose(errors[:, 0, 0], [3 / 5, 4 / 5, 4 / 5], atol=1e-9)


def test_dawid_skene_first_e_step_by_hand():
    # Task 0 (a=1, b=1, c=0), prior P(1) = 4/9:
    #   P(1) ~ 4/9 * 1 * 1/2 * 1/2 = 1/9,  P(0) ~ 5/9 * 2/5 * 1/5 * 4/5 = 8/225  ->  25/33.
    data = encode(**SMALL)
    p_positive, _, _ = ds_module.fit_dawid_skene(
        data, initial=np.array([2 / 3, 0.0, 2 / 3]), n_iter=1
    )
    np.testing.assert_allclose(p_positive, [25 / 33, 0, 25 / 33], atol=1e-8)


def test_mace_e_step_by_hand():
    # Every worker knows the answer with probability 1/2 and otherwise says 1 half
    # the time: two 1s give P(1) ~ (1/2 + 1/4)^2 = 9/16 against (1/4)^2 = 1/16 -> 0.9.
    data = encode([0, 0], ["a", "b"], [1, 1])
    half = np.full((2, 2), 0.5)
    gold, _, _ = mace_module._e_step(data, half, half)
    assert gold[0, 1] / gold[0].sum() == pytest.approx(0.9)


def test_mace_competence_from_spamming_and_strategy():
    # Sensitivity = P(knows) + P(spams) theta[1], specificity = P(knows) + P(spams) theta[0].
    data = encode(**SMALL)
    _, sensitivity, specificity = mace_module.fit_mace(data, n_iter=0)
    spam = mace_module._initial(0, (3, 2))
    np.testing.assert_allclose(sensitivity, spam[:, 1] + spam[:, 0] * spam[:, 1])
    np.testing.assert_allclose(specificity, spam[:, 1] + spam[:, 0] * spam[:, 0])


@pytest.mark.parametrize("method", ["dawid_skene", "mace"])
def test_models_trust_the_reliable_workers(method):
    # Four careful workers agree with the truth; a fifth always says 1.
    truth = [1, 0, 0, 1, 0, 0, 1, 0, 0, 0]
    rows = [(t, w, y) for t, y in enumerate(truth) for w in "abcd"]
    rows += [(t, "z", 1) for t in range(len(truth))]
    tasks, workers, labels = zip(*rows, strict=True)
    result = aggregate_binary(method, tasks, workers, labels)
    assert result.labels.tolist() == truth
    assert result.workers.tolist() == ["a", "b", "c", "d", "z"]
    assert (result.specificity[:4] > 0.9).all()
    assert result.specificity[4] < 0.5


@pytest.mark.parametrize("method", list(METHODS))
def test_order_of_the_triples_does_not_matter(method):
    rng = np.random.default_rng(2)
    tasks = np.repeat(np.arange(30), 3)
    workers = np.concatenate([rng.choice(7, 3, replace=False) for _ in range(30)])
    labels = rng.integers(0, 2, 90)
    order = rng.permutation(90)
    first = aggregate_binary(method, tasks, workers, labels)
    second = aggregate_binary(method, tasks[order], workers[order], labels[order])
    np.testing.assert_allclose(first.p_positive, second.p_positive, atol=1e-12)
    np.testing.assert_allclose(first.sensitivity, second.sensitivity, atol=1e-12)


@pytest.mark.parametrize("method", list(METHODS))
def test_empty_input_gives_empty_result(method):
    result = aggregate_binary(method, [], [], [])
    assert len(result.tasks) == len(result.p_positive) == len(result.labels) == 0


@pytest.mark.parametrize(
    "args, message",
    [
        (("vote", [0], ["a"], [1]), "unknown aggregation method"),
        (("majority", [0, 1], ["a"], [1]), "equal lengths"),
        (("majority", [0], ["a"], [2]), "0 or 1"),
        (("majority", [0, 0], ["a", "a"], [1, 0]), "more than once"),
    ],
)
def test_bad_input_is_refused(args, message):
    with pytest.raises(ValueError, match=message):
        aggregate_binary(*args)


def test_unknown_tie_rule_is_refused():
    with pytest.raises(ValueError, match="tie rule"):
        aggregate_binary("majority", [0], ["a"], [1], tie="coin")
