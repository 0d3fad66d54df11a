"""Simulated answers for the demo study, so its results page has something to show."""

from __future__ import annotations

from studies.models import ParticipantSession, Study, StudyResults
from studies.selectors.results import study_counted_response_count
from studies.services.results.compute import results_compute, results_snapshot_save
from studies.services.results.simulate import SimulationSummary, study_simulate


def simulate_demo_results(study: Study, participants: int = 60, seed: int = 1) -> SimulationSummary:
    """Fill the demo study with simulated participants and compute its results once.

    Running it again with the same seed adds nobody (the simulated ids resume).
    """
    summary = study_simulate(study=study, participants=participants, seed=seed)
    data = results_compute(study)
    results_snapshot_save(
        study=study, data=data, response_count=study_counted_response_count(study)
    )
    return summary


def demo_results_ensure(study: Study, participants: int = 60, seed: int = 1) -> list[str]:
    """What `load_demo` runs: each step only when it was not done before.

    A second `make demo` must start in seconds, and fitting the models is the slow part
    (tens of seconds). So the simulation runs only while simulated ids (``sim-<seed>-<i>``)
    are missing, and the results only when the study has no snapshot: a snapshot that
    later responses made stale is recomputed by the running server (the results page's
    job), not at start-up. Returns what was done, for the command's output.
    """
    done = []
    simulated = ParticipantSession.objects.filter(
        study=study, external_id__startswith=f"sim-{seed}-"
    ).count()
    if simulated < participants:
        summary = study_simulate(study=study, participants=participants, seed=seed)
        done.append(f"{summary.created} simulated participants")
    if not StudyResults.objects.filter(study=study, computed_at__isnull=False).exists():
        data = results_compute(study)
        results_snapshot_save(
            study=study, data=data, response_count=study_counted_response_count(study)
        )
        done.append("results computed")
    return done
