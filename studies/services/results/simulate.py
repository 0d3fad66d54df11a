"""Filling a study with simulated participants, through the real session services.

Each participant starts a session with :func:`session_start` (so the order,
trials and participant numbers are exactly those a real participant gets), then
answers every trial with an answer read and checked by the same code a real
submit uses (:func:`read_answer`); the responses are inserted in bulk per
participant, which is what makes thousands of participants practical.

Whether an answer is wrong follows :func:`analysis.simulate.simulate_trials`:
a logistic model with a per-group error rate on the non-manipulated charts, a
per-group manipulation effect, and random participant and question effects.
Groups named like the CHARTOM paper's (G1..G15) take the paper's Table 1 mean
HMIs as their rates; other groups get a base error of 0.15 and an effect of
1.5 on the log-odds scale. A fraction of participants is inattentive: they
answer at random-ish (error 0.5), quickly, and fail the attention checks.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import timedelta

import numpy as np
from django.db import transaction
from django.utils import timezone
from scipy.special import logit

from analysis.simulate import chartom_groups, simulate_trials
from studies.answer_types import get_type
from studies.models import ParticipantSession, Response, Study
from studies.selectors.results import chart_catalogue
from studies.selectors.study import participant_trials, trial_spec
from studies.services.sessions import (
    AlreadyStarted,
    AnswerInvalid,
    Identity,
    StudyFull,
    answer_error,
    read_answer,
    session_start,
)
from studies.services.study.stopping import study_stop_check

Status = ParticipantSession.Status


@dataclass
class SimulationSummary:
    created: int
    resumed: int
    completed: int
    timed_out: int
    inattentive: int
    expected_hmi: dict[str, float]
    # Why the study took no more simulated participants (e.g. its stopping rule was met).
    refused: str = ""


def paper_rates(groups: list[str]) -> tuple[dict, dict]:
    """Per-group base error and manipulation log-odds effect (Table 1 where the code matches)."""
    table = chartom_groups().set_index("group")
    base, effect = {}, {}
    for group in groups:
        if group in table.index:
            p_n = float(np.clip(table.loc[group, "hmi_non_manipulated"], 0.02, 0.95))
            p_m = float(np.clip(table.loc[group, "hmi_manipulated"], 0.02, 0.98))
            base[group] = p_n
            effect[group] = float(logit(p_m) - logit(p_n))
        else:
            base[group], effect[group] = 0.15, 1.5
    return base, effect


def simulated_answer(trial, *, correct: bool, rng: random.Random):
    """An answer of the kind a participant would give, right or wrong as asked."""
    answer_type, options, key, _tolerance = trial_spec(trial)
    return get_type(answer_type).simulate(options, key, correct=correct, rng=rng)


def _times(rng: np.random.Generator, n: int, inattentive: bool) -> np.ndarray:
    median = 2.5 if inattentive else 9.0
    return np.clip(rng.lognormal(np.log(median), 0.4, n), 0.6, 120.0)


def study_simulate(
    *,
    study: Study,
    participants: int,
    seed: int = 1,
    attention_fail_rate: float = 0.1,
    timeout_rate: float = 0.03,
    now=None,
    progress=None,
) -> SimulationSummary:
    """Add ``participants`` simulated participants to a pilot or live study.

    The same seed adds the same participants (platform ids ``sim-<seed>-<i>``): a
    second run resumes them rather than adding more.
    """
    if participants < 1:
        raise ValueError("participants must be at least 1")
    catalogue = chart_catalogue(study)
    if catalogue.empty:
        raise ValueError("This study has no chart pairs to answer.")
    groups = list(dict.fromkeys(catalogue["group"]))
    base, effect = paper_rates(groups)
    sim = simulate_trials(
        catalogue[["chart_id", "group", "question", "version", "manipulation"]],
        participants,
        seed,
        base_error=base,
        manipulation_effect=effect,
        attention_fail_rate=attention_fail_rate,
    )
    wrong = _wrong_answers(sim.trials)
    inattentive_ids = set(sim.failed_attention)
    rng = np.random.default_rng(seed + 7919)
    now = now or timezone.now()
    summary = SimulationSummary(0, 0, 0, 0, len(inattentive_ids), {})
    summary.expected_hmi = dict(
        zip(sim.charts["chart_id"], sim.charts["expected_hmi"].astype(float), strict=True)
    )
    for i, pid in enumerate(sim.participants["participant"]):
        identity = Identity(platform=study.platform, external_id=f"sim-{seed}-{i + 1}")
        start = now - timedelta(hours=2) + timedelta(seconds=37 * i)
        try:
            result = session_start(
                study=study, identity=identity, user_agent="simulate_study", now=start
            )
        except AlreadyStarted:
            # A rerun with the same seed: this simulated participant is already there.
            summary.resumed += 1
            continue
        except StudyFull as exc:
            summary.refused = exc.message
            break
        summary.created += 1
        timed_out = rng.random() < timeout_rate
        _answer_all(
            result.session,
            wrong=lambda chart_id, pid=pid: wrong[(pid, chart_id)],
            inattentive=pid in inattentive_ids,
            timed_out=timed_out,
            start=start,
            rng=rng,
            choice_rng=random.Random(seed * 100003 + i),
        )
        if timed_out:
            summary.timed_out += 1
        else:
            summary.completed += 1
            # What the participant flow does after a completion (there, once committed).
            if not result.session.is_test:
                study_stop_check(study_id=study.pk)
        if progress:
            progress(i + 1, participants)
    return summary


def _wrong_answers(trials) -> dict:
    """(participant, chart_id) -> whether the simulated answer is wrong (unanswered counts)."""
    return {
        (p, c): not ok
        for p, c, ok in zip(
            trials["participant"],
            trials["chart_id"],
            trials["correct"].fillna(False).astype(bool),
            strict=True,
        )
    }


def _answer_all(session, *, wrong, inattentive, timed_out, start, rng, choice_rng) -> None:
    trials = list(participant_trials().filter(session=session).order_by("position"))
    stop = len(trials)
    if timed_out:
        stop = int(rng.integers(1, max(2, len(trials))))
    seconds = _times(rng, len(trials), inattentive)
    clock = start + timedelta(seconds=20)
    responses, failures = [], 0
    for trial, spent in zip(trials[:stop], seconds[:stop], strict=False):
        if trial.is_attention:
            correct = not inattentive and rng.random() > 0.02
        else:
            correct = not wrong(trial.chart.chart_id)
        answer = simulated_answer(trial, correct=correct, rng=choice_rng)
        try:
            value, is_correct = read_answer(trial, answer)
        except AnswerInvalid:
            value, is_correct = None, None
        shown = clock
        clock = clock + timedelta(seconds=float(spent))
        if trial.is_attention and is_correct is False:
            failures += 1
        responses.append(
            Response(
                trial=trial,
                session=session,
                position=trial.position,
                chart_id=trial.chart_id,
                attention_check_id=trial.attention_check_id,
                raw_answer=answer if isinstance(answer, str) else _json_text(answer),
                value=value,
                correct=is_correct,
                abs_error=None if value is None else answer_error(trial, value),
                shown_at=shown,
                answered_at=clock,
                server_ms=int(spent * 1000),
                client_ms=max(0, int(spent * 1000) - int(rng.integers(20, 200))),
            )
        )
    with transaction.atomic():
        Response.objects.bulk_create(responses, batch_size=500)
        session.current_position = len(responses)
        session.attention_failures = failures
        session.instructions_done_at = start + timedelta(seconds=15)
        if timed_out:
            session.status = Status.TIMED_OUT
            session.ended_at = session.deadline
        else:
            session.status = Status.COMPLETED
            session.completed_at = clock
            session.debriefed_at = clock + timedelta(seconds=10)
        session.save(
            update_fields=[
                "current_position",
                "attention_failures",
                "instructions_done_at",
                "status",
                "ended_at",
                "completed_at",
                "debriefed_at",
            ]
        )


def _json_text(answer) -> str:
    import json

    return json.dumps(answer, ensure_ascii=False)
