"""Shared set-up for the results and export tests: a small study with simulated participants."""

from studies.selectors.results import study_response_count
from studies.services.results.compute import results_compute, results_snapshot_save
from studies.services.results.simulate import study_simulate
from studies.tests.study_factories import make_study


def simulated_study(owner, *, participants=30, pairs=3, seed=4, compute=True, **settings):
    study = make_study(owner, pairs=pairs, **settings)
    study_simulate(study=study, participants=participants, seed=seed, timeout_rate=0.05)
    if compute:
        data = results_compute(study)
        results_snapshot_save(study=study, data=data, response_count=study_response_count(study))
    return study
