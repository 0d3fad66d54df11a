"""The HMI table from the database's counts equals the one from the trial-level frame."""

import pandas as pd
import pytest

from analysis.hmi import chart_hmi
from studies.selectors import results as sel
from studies.services.results.compute import chart_hmi_frame
from studies.services.results.exclusion import study_exclusion
from studies.services.results.simulate import study_simulate
from studies.tests.factories import make_study

pytestmark = pytest.mark.django_db


def test_the_hmi_table_from_counts_equals_the_trial_level_table_with_exclusions(researcher):
    study = make_study(researcher, pairs=3, exclude_incomplete=False)
    study_simulate(study=study, participants=30, seed=5, timeout_rate=0.2, attention_fail_rate=0.2)
    exclusion = study_exclusion(study)
    assert exclusion.excluded and exclusion.included  # the rules left some out
    catalogue = sel.chart_catalogue(study)
    ids = exclusion.included_ids
    from_counts = chart_hmi_frame(catalogue, sel.chart_error_counts(study, ids))

    trials = sel.chart_trials_frame(study, ids)
    code = dict(zip(catalogue["pk"], catalogue["chart_id"], strict=True))
    frame = pd.DataFrame(
        {
            "participant": trials["participant"],
            "chart_id": trials["chart_pk"].map(code),
            "correct": trials["correct"],
        }
    )
    from_trials = catalogue.merge(
        chart_hmi(frame, chart_ids=list(catalogue["chart_id"])), on="chart_id", how="left"
    )
    pd.testing.assert_frame_equal(from_counts, from_trials)
