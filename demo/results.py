"""Simulated answers for the demo study, so its results page has something to show."""

from __future__ import annotations

from studies.models import Study
from studies.selectors.results import study_response_count
from studies.services.results.compute import results_compute, results_snapshot_save
from studies.services.results.simulate import SimulationSummary, study_simulate


def simulate_demo_results(study: Study, participants: int = 60, seed: int = 1) -> SimulationSummary:
    """Fill the demo study with simulated participants and compute its results once.

    Running it again with the same seed adds nobody (the simulated ids resume).
    """
    summary = study_simulate(study=study, participants=participants, seed=seed)
    data = results_compute(study)
    results_snapshot_save(study=study, data=data, response_count=study_response_count(study))
    return summary
