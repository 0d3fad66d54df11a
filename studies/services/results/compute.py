"""The analysis run: from the database to the results snapshot the dashboard shows."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.utils import timezone

from analysis.against_paper import kendall_vs_paper
from analysis.hmi import (
    attach_chart_meta,
    chi_square_from_counts,
    group_table,
    hmi_from_counts,
)
from analysis.hmi_plots import paired_group_svg, sorted_hmi_svg
from analysis.json_safe import json_safe
from analysis.log_odds import log_odds_by_group
from studies.models import Study, StudyResults
from studies.selectors import results as sel
from studies.selectors.languages import language_name, sessions_by_language
from studies.services.results.exclusion import study_exclusion

if TYPE_CHECKING:
    import pandas as pd

NO_PARTICIPANTS = (
    "No included participants yet, so there is nothing to analyse. "
    "Check the funnel: every session so far was excluded, is unfinished, or is a test session."
)


def _records(frame: pd.DataFrame) -> list[dict]:
    return json_safe(frame.astype(object).where(frame.notna(), None).to_dict("records"))


def chart_hmi_frame(catalogue: pd.DataFrame, counts: dict[int, tuple]) -> pd.DataFrame:
    """HMI per chart (CHARTOM 4.2) joined to the catalogue; charts nobody answered keep n = 0.

    ``counts`` is chart pk -> (n, n_wrong, n_unanswered), counted by the database
    (``sel.chart_error_counts``): the HMI table needs no trial-level frame.
    """
    import pandas as pd

    code = dict(zip(catalogue["pk"], catalogue["chart_id"], strict=True))
    frame = pd.DataFrame(
        [counts[pk] for pk in counts],
        index=pd.Index([code[pk] for pk in counts], name="chart_id"),
        columns=["n", "n_wrong", "n_unanswered"],
    )
    hmi = hmi_from_counts(frame, chart_ids=list(catalogue["chart_id"]))
    return catalogue.merge(hmi, on="chart_id", how="left")


def hmi_by_language(study: Study, catalogue: pd.DataFrame, included_ids) -> dict | None:
    """Each chart's HMI among the included participants of each language, for a study
    that speaks more than one (None otherwise): the same rule as the whole table."""
    groups = sessions_by_language(study, included_ids)
    if len(study.languages) < 2 and len(groups) < 2:
        return None
    columns = ["chart_id", "version", "hmi", "ci_low", "ci_high", "n"]
    # chart_hmi_frame keeps the catalogue's order, so the i-th record is the same chart.
    tables = [
        _records(chart_hmi_frame(catalogue, sel.chart_error_counts(study, ids))[columns])
        for ids in groups.values()
    ]
    languages = [
        {"code": code, "name": language_name(code), "participants": len(ids)}
        for code, ids in groups.items()
    ]
    rows = [
        {"chart_id": cells[0]["chart_id"], "version": cells[0]["version"], "cells": list(cells)}
        for cells in zip(*tables, strict=True)
    ]
    return {"languages": languages, "rows": rows}


def _decision_rows(exclusion) -> list[dict]:
    """The sessions excluded, or included by a researcher's override."""
    return [
        {
            "session": d.facts.id,
            "number": d.facts.number,
            "status": d.facts.status,
            "included": d.included,
            "overridden": d.overridden,
            "main_reason": d.main_reason,
            "reasons": d.reason_text,
        }
        for d in exclusion.took_part
        if not d.included or d.overridden
    ]


def _no_progress(progress: float, message: str = "") -> None:
    pass


def _trials_with_meta(trials: pd.DataFrame, catalogue: pd.DataFrame) -> pd.DataFrame:
    """The trial rows with their chart's group, question, version and manipulation."""
    import pandas as pd

    code = dict(zip(catalogue["pk"], catalogue["chart_id"], strict=True))
    return attach_chart_meta(
        pd.DataFrame(
            {
                "participant": trials["participant"].astype(str),
                "chart_id": trials["chart_pk"].map(code),
                "correct": trials["correct"],
            }
        ),
        catalogue[["chart_id", "group", "question", "version", "group_manipulation"]].rename(
            columns={"group_manipulation": "manipulation"}
        ),
    )


def results_compute(
    study: Study, *, seed: int | None = None, fit_models: bool = True, report=_no_progress
) -> dict:
    """Everything the results page shows, as JSON-ready data. Never raises on awkward data.

    ``report(progress, message)`` hears of each step (a job's reporter, for its status panel).
    """
    exclusion = study_exclusion(study)
    funnel = exclusion.funnel()
    excluded = _decision_rows(exclusion)
    data: dict = {
        "computed_at": timezone.now().isoformat(),
        "funnel": funnel,
        "decisions": excluded,
        "rules": {
            "max_attention_failures": study.max_attention_failures,
            "min_seconds_per_trial": study.min_seconds_per_trial,
            "min_trial_ms": study.min_trial_ms,
            "exclude_incomplete": study.exclude_incomplete,
        },
        "messages": [],
        "charts": [],
        "groups": [],
        "chi_square": [],
        "log_odds": [],
        "kendall": None,
        "svg": {},
    }
    catalogue = sel.chart_catalogue(study)
    if catalogue.empty:
        data["messages"].append("This study has no chart pairs yet.")
        return data
    ids = exclusion.included_ids
    hmi = chart_hmi_frame(catalogue, sel.chart_error_counts(study, ids))
    answers = sel.answer_distribution(study, ids)
    charts = _records(hmi.drop(columns=["fact_question", "answer_key"]))
    for row in charts:
        row["answers"] = answers.get(row["pk"], [])
    data["charts"] = charts
    data["by_language"] = hmi_by_language(study, catalogue, ids)
    table = group_table(
        hmi,
        catalogue.drop(columns=["manipulation"]).rename(
            columns={"group_manipulation": "manipulation"}
        ),
    )
    data["groups"] = _records(table)
    report(0.3, "Drawing the figures")
    data["svg"] = {
        "sorted": sorted_hmi_svg(hmi),
        "paired": paired_group_svg(table),
    }
    if not ids:
        data["messages"].append(NO_PARTICIPANTS)
        return data
    report(0.4, "Chi-square tests")
    # Sums of the per-chart counts: the chi-square tests need no trial rows.
    chi = chi_square_from_counts(hmi)
    chi["table"] = chi["table"].map(lambda t: [list(r) for r in t])
    data["chi_square"] = _records(chi)
    if fit_models:
        # Trial rows only for the models, which need each participant's answers.
        with_meta = _trials_with_meta(sel.chart_trials_frame(study, ids), catalogue)
        report(0.5, "Fitting the mixed-effects and GEE models")
        fits = log_odds_by_group(with_meta, seed=study.seed if seed is None else seed)
        data["log_odds"] = _records(fits)
        data["kendall"] = kendall_vs_paper(fits)
    return data


def results_snapshot_save(
    *, study: Study, data: dict, job=None, response_count: int, started_at=None
) -> StudyResults:
    """Keep ``data`` as the study's results. ``started_at``: when the computation read its
    inputs, which is what the snapshot is as of (a decision made while it ran is newer)."""
    results, _ = StudyResults.objects.get_or_create(study=study)
    results.data = data
    results.computed_at = started_at or timezone.now()
    results.response_count = response_count
    results.job = job
    fields = ["data", "computed_at", "response_count", "job"]
    if job is not None and results.pending_job_id == job.pk:
        results.pending_job = None
        fields.append("pending_job")
    results.save(update_fields=fields)
    return results
