"""Demo model answers: two simulated models with different behaviour, imported like a real file."""

from __future__ import annotations

import io
import json

import pandas as pd

from analysis.model_eval import simulate_model_answers
from studies.selectors.model_eval import analysis_charts, human_hmi, vocabularies
from studies.selectors.results import chart_catalogue
from studies.services.model_eval import ImportReport, model_answers_import

DEMO_MODELS = {"perceptive-model": "perceptive", "flat-model": "flat"}


def demo_answers_jsonl(study, *, seed: int = 0) -> bytes:
    catalogue = chart_catalogue(study)
    charts = analysis_charts(catalogue)
    # The simulation reads the manipulation slug to pick its vocabulary phrase.
    charts["manipulation"] = catalogue["manipulation"].where(catalogue["version"] == 2)
    hmi, _ = human_hmi(study)
    if hmi.empty:
        hmi = pd.DataFrame({"chart_id": charts["chart_id"], "hmi": float("nan")})
    answers = simulate_model_answers(
        charts, hmi, models=DEMO_MODELS, vocabularies=vocabularies(catalogue), seed=seed
    )
    keys = _correct_answers(study)
    lines = []
    for row in answers.to_dict("records"):
        if row["correct"] is None:
            continue
        right, wrong = keys[row["chart_id"]]
        lines.append(
            {
                "model": row["model"],
                "chart_id": row["chart_id"],
                "fact_answer": right if row["correct"] else wrong,
                "mind_prediction": row["mind_answer"],
                "mind_justification": row["mind_justification"],
            }
        )
    return "\n".join(json.dumps(line) for line in lines).encode()


def _correct_answers(study) -> dict[str, tuple[str, str]]:
    """chart id -> (a right answer, a wrong answer) as a model would write them."""
    from studies.answer_types import question_key
    from studies.services.model_eval import study_charts

    out = {}
    for chart_id, chart in study_charts(study).items():
        question = chart.question
        options, key = question_key(question)
        out[chart_id] = question.kind.model_replies(options, key, question)
    return out


def load_model_eval_demo(study, *, seed: int = 0) -> ImportReport:
    """Import the two demo models into ``study``; running it again replaces them."""
    data = demo_answers_jsonl(study, seed=seed)
    return model_answers_import(study=study, source=io.BytesIO(data), filename="demo-models.jsonl")


def demo_models_ensure(study) -> bool:
    """Import the demo models unless both are there already (what `load_demo` runs)."""
    from studies.models import ModelRun

    if ModelRun.objects.filter(study=study, model__in=DEMO_MODELS).count() == len(DEMO_MODELS):
        return False
    load_model_eval_demo(study)
    return True
