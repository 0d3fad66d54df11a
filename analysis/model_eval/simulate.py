"""Simulated model answers with known behaviour, for demos and tests.

Two stock behaviours mirror what the CHARTOM paper reports (section 5):

``perceptive``
    Rarely wrong on plain charts, fooled on manipulated ones roughly in
    proportion to how much the manipulation fools people; predicts HMI with
    small noise (r near 0.95, far above the paper's best of 0.6, so the two
    models are easy to tell apart on a page) and names the planted
    manipulation more often the higher the HMI.
``flat``
    Wrong now and then everywhere, somewhat more on manipulated charts;
    predicts about 0.5 whatever the chart (the paper's "almost flat trend");
    seldom names the manipulation; skips some charts and sometimes gives a
    MIND answer without a number, so coverage and the unreadable-answer path
    show up too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

BEHAVIOURS = ("perceptive", "flat")


def _justification(named: bool, phrase: str, rng) -> str:
    if named:
        return f"The chart looks misleading: {phrase}, so many readers will misjudge it."
    return str(rng.choice(["The chart looks clear and standard.", "Readers may misread values."]))


def simulate_model_answers(
    charts: pd.DataFrame,
    hmi: pd.DataFrame,
    *,
    models: Mapping[str, str] | None = None,
    vocabularies: Mapping[str, tuple[str, ...]] | None = None,
    seed: int = 0,
) -> pd.DataFrame:
    """One row per model x chart: model, chart_id, correct, mind_answer, mind_justification.

    ``charts`` needs chart_id, version and manipulation (the planted one on _2
    charts); ``hmi`` chart_id and hmi. ``models`` maps a model name to a
    behaviour in :data:`BEHAVIOURS` (default: one of each). ``mind_answer`` is
    free text such as "0.42 because ..." (read it with extract_probability);
    ``correct`` is None where the model skipped the chart. The justification
    of a manipulated chart names the first phrase of its vocabulary (or the
    manipulation's name) when the model "sees" it. The same seed gives the
    same answers.
    """
    import pandas as pd

    models = dict(models or {"perceptive-model": "perceptive", "flat-model": "flat"})
    unknown = sorted(set(models.values()) - set(BEHAVIOURS))
    if unknown:
        raise ValueError(f"unknown behaviour(s) {unknown}; use {BEHAVIOURS}")
    vocabularies = dict(vocabularies or {})
    charts = pd.DataFrame(charts)
    truth = pd.DataFrame(hmi).set_index("chart_id")["hmi"].astype(float)
    rng = np.random.default_rng(seed)
    rows = []
    for model, behaviour in models.items():
        for chart in charts.to_dict("records"):
            h = float(truth.get(chart["chart_id"], np.nan))
            h_known = h if np.isfinite(h) else 0.3
            manipulated = int(chart["version"]) == 2
            manipulation = str(chart.get("manipulation") or "")
            phrases = vocabularies.get(manipulation) or (manipulation.replace("_", " "),)
            if behaviour == "perceptive":
                p_error = 0.05 + (0.8 * h_known if manipulated else 0.0)
                prediction = float(np.clip(h_known + rng.normal(0, 0.1), 0, 1))
                p_named = 0.2 + 0.7 * h_known if manipulated else 0.05
                skipped = False
                unreadable = False
            else:
                p_error = 0.35 if manipulated else 0.2
                prediction = float(np.clip(0.5 + rng.normal(0, 0.05), 0, 1))
                p_named = 0.15 if manipulated else 0.1
                skipped = rng.random() < 0.08
                unreadable = rng.random() < 0.05
            if skipped:
                rows.append(
                    {
                        "model": model,
                        "chart_id": chart["chart_id"],
                        "correct": None,
                        "mind_answer": None,
                        "mind_justification": None,
                    }
                )
                continue
            named = bool(manipulation) and manipulation != "none" and rng.random() < p_named
            justification = _justification(named, str(phrases[0]), rng)
            mind = (
                "Hard to say; it depends on the reader."
                if unreadable
                else f"{prediction:.2f} because {justification[0].lower()}{justification[1:]}"
            )
            rows.append(
                {
                    "model": model,
                    "chart_id": chart["chart_id"],
                    "correct": bool(rng.random() >= p_error),
                    "mind_answer": mind,
                    "mind_justification": justification,
                }
            )
    out = pd.DataFrame(rows)
    out["correct"] = out["correct"].astype(object)
    return out
