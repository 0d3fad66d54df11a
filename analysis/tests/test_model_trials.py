"""The trials the log odds model is fitted on, as the replication CSV writes them; hover titles."""

import numpy as np
import pandas as pd

from analysis.hmi_plots import sorted_hmi_svg
from analysis.log_odds import model_trials


def _trials():
    rows = []
    for p in range(6):
        for group in ("G2", "G10", "G3"):
            for version in (1, 2):
                # G3's manipulated charts are always answered wrongly: unbounded, left out.
                correct = False if (group == "G3" and version == 2) else (p + version) % 3 != 0
                rows.append(
                    {
                        "participant": f"p{p}",
                        "chart_id": f"{group}_Q1_{version}",
                        "correct": None if (p == 0 and version == 2) else correct,
                        "group": group,
                        "question": "Q1",
                        "version": version,
                    }
                )
    return pd.DataFrame(rows)


def test_it_keeps_one_row_per_trial_of_each_fitted_group_in_natural_order():
    trials = _trials()
    out = model_trials(trials)
    assert list(out.columns) == [
        "participant", "chart_id", "group", "question", "version", "manipulated", "error",
    ]  # fmt: skip
    assert list(dict.fromkeys(out["group"])) == ["G2", "G10"]
    assert len(out) == (trials["group"] != "G3").sum()
    kept = trials[trials["group"] != "G3"]
    # Unanswered counts as an error, as HMI counts it.
    assert out["error"].sum() == (kept["correct"] != True).sum()  # noqa: E712
    assert (out["manipulated"] == out["version"] - 1).all()


def test_every_bar_of_the_sorted_figure_has_a_hover_title():
    frame = pd.DataFrame(
        {
            "chart_id": ["G1_Q1_1", "G1_Q1_2", "G2_Q1_1"],
            "hmi": [0.2, 0.55, np.nan],
            "version": [1, 2, 1],
            "ci_low": [0.1, 0.4, np.nan],
            "ci_high": [0.3, 0.7, np.nan],
            "n": [20, 20, 0],
        }
    )
    svg = sorted_hmi_svg(frame)
    assert svg.count("<title>") == 2
    assert "<title>G1_Q1_2 (manipulated): HMI 0.55, 95% CI 0.40 to 0.70, n = 20</title>" in svg
