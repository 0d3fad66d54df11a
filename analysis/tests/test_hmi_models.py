"""Per-group log odds ratios (mixed model and GEE) on simulated studies with known effects."""

import numpy as np
import pandas as pd
import pytest
from statsmodels.genmod.bayes_mixed_glm import BinomialBayesMixedGLM

from analysis.hmi import attach_chart_meta
from analysis.log_odds import GEE_ESTIMATOR, MIXED_ESTIMATOR, log_odds_by_group
from analysis.simulate import make_charts, simulate_trials

TRUE_EFFECTS = {"G1": -0.5, "G2": 0.0, "G3": 1.0, "G4": 2.0}


@pytest.fixture(scope="module")
def charts():
    groups = pd.DataFrame(
        {
            "group": list(TRUE_EFFECTS),
            "manipulation": ["pictorial bars", "compressed y-axis", "3D effect", "inverted y-axis"],
        }
    )
    return make_charts(groups, questions_per_group=4)


@pytest.fixture(scope="module")
def study(charts):
    simulated = simulate_trials(
        charts, 120, seed=2, base_error=0.2, manipulation_effect=TRUE_EFFECTS
    )
    return attach_chart_meta(simulated.included_trials, charts)


@pytest.fixture(scope="module")
def estimates(study):
    return log_odds_by_group(study, seed=0)


def _by_group(frame, estimator):
    return frame[frame["estimator"] == estimator].set_index("group")


def test_it_reports_one_row_per_group_and_estimator(estimates):
    assert list(estimates.columns) == [
        "group",
        "manipulation",
        "estimator",
        "n_trials",
        "p_n",
        "p_m",
        "log_odds_ratio",
        "se",
        "ci_low",
        "ci_high",
        "interval",
        "message",
    ]
    assert len(estimates) == 2 * len(TRUE_EFFECTS)
    assert set(estimates["estimator"]) == {
        "BinomialBayesMixedGLM (variational Bayes)",
        "GEE (exchangeable, participant clusters)",
    }
    assert estimates["message"].isna().all()
    assert _by_group(estimates, MIXED_ESTIMATOR).loc["G3", "manipulation"] == "3D effect"


def test_mixed_model_recovers_the_sign_and_order_of_the_true_effects(estimates):
    mixed = _by_group(estimates, MIXED_ESTIMATOR)
    log_or = mixed["log_odds_ratio"]
    assert log_or["G1"] < 0 < log_or["G3"] < log_or["G4"]
    assert log_or.sort_values().index.tolist() == ["G1", "G2", "G3", "G4"]
    # The null group's interval covers 0; the true effects lie inside their intervals.
    assert mixed.loc["G2", "ci_low"] < 0 < mixed.loc["G2", "ci_high"]
    truth = pd.Series(TRUE_EFFECTS)
    assert (np.abs(log_or - truth) < 3 * mixed["se"]).all()


def test_log_odds_ratio_is_the_log_of_the_odds_ratio_of_p_m_and_p_n(estimates):
    odds = lambda p: p / (1 - p)  # noqa: E731
    expected = np.log(odds(estimates["p_m"]) / odds(estimates["p_n"]))
    np.testing.assert_allclose(estimates["log_odds_ratio"], expected, rtol=1e-9)
    assert (estimates["ci_low"] < estimates["log_odds_ratio"]).all()
    assert (estimates["log_odds_ratio"] < estimates["ci_high"]).all()


def test_gee_agrees_in_sign_with_the_mixed_model(estimates):
    mixed = _by_group(estimates, MIXED_ESTIMATOR)["log_odds_ratio"]
    gee = _by_group(estimates, GEE_ESTIMATOR)["log_odds_ratio"]
    for group in ("G1", "G3", "G4"):
        assert np.sign(gee[group]) == np.sign(mixed[group])
    # Population-averaged effects are attenuated toward 0 relative to conditional ones.
    assert abs(gee["G4"]) < abs(mixed["G4"])


def test_gee_cell_probabilities_are_the_observed_error_rates(study, estimates):
    errors = ~study["correct"].fillna(False).astype(bool)
    observed = errors.groupby([study["group"], study["version"]]).mean()
    gee = _by_group(estimates, GEE_ESTIMATOR)
    for group in TRUE_EFFECTS:
        assert gee.loc[group, "p_n"] == pytest.approx(observed[(group, 1)], abs=1e-6)
        assert gee.loc[group, "p_m"] == pytest.approx(observed[(group, 2)], abs=1e-6)


def test_the_same_seed_gives_the_same_numbers(study, estimates):
    pd.testing.assert_frame_equal(log_odds_by_group(study, seed=0), estimates)


def test_a_group_with_an_all_correct_cell_gets_a_message_not_a_crash(study):
    degenerate = study.copy()
    all_right = (degenerate["group"] == "G2") & (degenerate["version"] == 2)
    degenerate.loc[all_right, "correct"] = True
    result = log_odds_by_group(degenerate, seed=0)
    g2 = result[result["group"] == "G2"]
    assert len(g2) == 2
    assert g2["log_odds_ratio"].isna().all() and g2["p_m"].isna().all()
    assert g2["message"].str.contains("every manipulated answer was correct").all()
    others = result[result["group"] != "G2"]
    assert others["message"].isna().all()
    assert others["log_odds_ratio"].notna().all()


def test_a_fit_that_stops_early_is_flagged(study):
    result = log_odds_by_group(study, seed=0, max_iterations=1)
    mixed = result[result["estimator"] == MIXED_ESTIMATOR]
    assert mixed["message"].str.contains("did not converge").all()


def test_a_fit_that_raises_gives_nan_and_a_message(study, monkeypatch):
    def broken_fit(*args, **kwargs):
        raise np.linalg.LinAlgError("singular matrix")

    monkeypatch.setattr(BinomialBayesMixedGLM, "fit_vb", broken_fit)
    result = log_odds_by_group(study, seed=0)
    mixed = result[result["estimator"] == MIXED_ESTIMATOR]
    assert mixed["log_odds_ratio"].isna().all()
    assert mixed["message"].str.contains("model fit failed: LinAlgError").all()
    gee = result[result["estimator"] == GEE_ESTIMATOR]
    assert gee["log_odds_ratio"].notna().all()


def test_no_usable_group_gives_messages_only(charts):
    one_group = charts[charts["group"] == "G1"]
    trials = simulate_trials(one_group, 10, seed=1).trials.assign(correct=True)
    result = log_odds_by_group(attach_chart_meta(trials, one_group), include_gee=False)
    assert len(result) == 1
    assert result.loc[0, "estimator"] == MIXED_ESTIMATOR
    assert np.isnan(result.loc[0, "log_odds_ratio"])
    assert "unbounded" in result.loc[0, "message"]
