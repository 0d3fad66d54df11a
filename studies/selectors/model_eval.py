"""Reads for model evaluation: the stored model answers as frames, and every analysis of them."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from analysis import model_eval as me
from analysis.hmi import MIXED_ESTIMATOR
from analysis.justifications import justification_report
from studies.model_answers_format import ModelAnswerRow, coverage
from studies.models import ManipulationType, ModelAnswer, ModelRun, Study, StudyResults
from studies.selectors.results import chart_catalogue

ANSWER_COLUMNS = ["model", "chart_id", "correct", "prediction", "justification", "mind_answer"]


LABELS = {
    "n": "n",
    "n_errors": "errors",
    "ci_low": "CI low",
    "ci_high": "CI high",
    "mae": "MAE",
    "mae_sd": "MAE SD",
    "pearson_r": "Pearson r",
    "pearson_p": "p (r)",
    "r_squared": "R²",
    "p_n": "p non-manip.",
    "p_m": "p manip.",
    "log_odds_ratio": "log OR",
    "se": "SE",
    "share_named": "share named",
    "false_alarm_rate": "false alarms",
    "hmi_r": "r with HMI",
    "hmi_p": "p (HMI)",
}


def model_runs(study: Study) -> list[ModelRun]:
    return list(ModelRun.objects.filter(study=study).order_by("model"))


def model_answer_frame(study: Study) -> pd.DataFrame:
    rows = (
        ModelAnswer.objects.filter(study=study)
        .order_by("model", "chart__chart_id")
        .values_list(
            "model",
            "chart__chart_id",
            "fact_correct",
            "mind_prediction",
            "mind_justification",
            "mind_answer",
        )
    )
    frame = pd.DataFrame(list(rows), columns=ANSWER_COLUMNS)
    frame["correct"] = frame["correct"].astype(object)
    return frame


def analysis_charts(catalogue: pd.DataFrame) -> pd.DataFrame:
    """chart_id, group, question, version, manipulation (the label on manipulated charts)."""
    charts = catalogue[["chart_id", "group", "question", "version"]].copy()
    charts["manipulation"] = np.where(
        catalogue["version"] == 2, catalogue["manipulation_label"], None
    )
    return charts


def human_hmi(study: Study) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(chart_id, hmi) and the humans' log odds rows, from the last computed results."""
    snapshot = StudyResults.objects.filter(study=study).values_list("data", flat=True).first()
    data = snapshot or {}
    hmi = pd.DataFrame(
        [{"chart_id": c["chart_id"], "hmi": c.get("hmi")} for c in data.get("charts", [])],
        columns=["chart_id", "hmi"],
    )
    hmi["hmi"] = pd.to_numeric(hmi["hmi"], errors="coerce").astype(float)
    log_odds = pd.DataFrame(data.get("log_odds") or [])
    return hmi, log_odds


def vocabularies(catalogue: pd.DataFrame) -> dict[str, tuple[str, ...]]:
    slugs = set(catalogue["manipulation"])
    out = {}
    for slug, label, vocabulary in ManipulationType.objects.filter(slug__in=slugs).values_list(
        "slug", "label", "vocabulary"
    ):
        phrases = tuple(vocabulary or ()) or (label,)
        out[label] = phrases
        out[slug] = phrases
    return out


def clean(value):
    if isinstance(value, float | np.floating):
        value = float(value)
        return None if math.isnan(value) or math.isinf(value) else round(value, 4)
    if isinstance(value, np.integer | np.bool_):
        return value.item()
    if isinstance(value, list | tuple):
        return [clean(v) for v in value]
    if value is pd.NA or value is pd.NaT:
        return None
    return value


def table(frame: pd.DataFrame, columns: list[str] | None = None) -> dict:
    """A frame as {columns, rows} for templates and JSON, NaN as None."""
    columns = [c for c in (columns or list(frame.columns)) if c in frame.columns]
    rows = [[clean(v) for v in record] for record in frame[columns].itertuples(index=False)]
    return {
        "columns": columns,
        "labels": [LABELS.get(c, c.replace("_", " ")) for c in columns],
        "rows": rows,
    }


def _coverage(study_answers: pd.DataFrame, chart_ids: list[str]) -> list[dict]:
    rows = [
        ModelAnswerRow(
            row=0,
            model=r.model,
            chart_id=r.chart_id,
            fact_answer=None if r.correct is None else "x",
            mind_answer=r.mind_answer or None,
            mind_prediction=None if pd.isna(r.prediction) else r.prediction,
            mind_justification=r.justification or None,
        )
        for r in study_answers.itertuples(index=False)
    ]
    from studies.services.model_eval import coverage_dict

    return [coverage_dict(c) for c in coverage(rows, chart_ids)]


def model_eval_report(study: Study, *, svg: bool = True, seed: int | None = None) -> dict:
    """Every analysis of the study's model answers, JSON-ready; empty parts say why."""
    catalogue = chart_catalogue(study)
    answers = model_answer_frame(study)
    hmi, human_log_odds = human_hmi(study)
    report: dict = {
        "models": sorted(set(answers["model"])),
        "coverage": [],
        "has_hmi": bool(hmi["hmi"].notna().any()),
        "messages": [],
    }
    if answers.empty or catalogue.empty:
        report["messages"].append("No model answers imported yet.")
        return report
    charts = analysis_charts(catalogue)
    report["coverage"] = _coverage(answers, list(catalogue["chart_id"]))
    fact = me.fact_error_rates(answers[["model", "chart_id", "correct"]], charts)
    report["fact"] = {
        "overall": table(fact.overall),
        "by_group": table(fact.by_group),
        "chi_square": table(fact.chi_square),
    }
    predictions = answers[["model", "chart_id", "prediction"]]
    mind = me.mind_metrics(predictions, hmi)
    arrows = me.mind_group_arrows(predictions, hmi, charts)
    report["mind"] = {"metrics": table(mind), "arrows": table(arrows)}
    if not report["has_hmi"]:
        report["messages"].append(
            "The study has no computed HMI yet: compute the results to score MIND predictions."
        )
    answered = answers[answers["correct"].notna()][["model", "chart_id", "correct"]]
    model_log_odds = pd.DataFrame()
    try:
        model_log_odds = me.model_population_log_odds(
            answered, charts, seed=study.seed if seed is None else seed, include_gee=False
        )
    except ValueError as exc:
        report["messages"].append(f"No model-population log odds: {exc}")
    report["log_odds"] = {"models": table(model_log_odds), "humans": table(human_log_odds)}
    ranking = None
    if not model_log_odds.empty and not human_log_odds.empty:
        ranking = me.compare_rankings(human_log_odds, model_log_odds)
        report["kendall"] = {
            "tau": clean(ranking.tau),
            "p_value": clean(ranking.p_value),
            "n_groups": ranking.n_groups,
            "left_out": ranking.left_out,
            "message": ranking.message,
        }
    else:
        report["kendall"] = None
    # The mixed model leaves out every group where all models got the plain (or the
    # manipulated) charts right, which is common for models; the pooled empirical
    # estimate stays finite there, so it ranks more groups.
    empirical = me.empirical_log_odds(answered, charts)
    report["log_odds"]["models_empirical"] = table(empirical)
    report["kendall_empirical"] = None
    if not human_log_odds.empty and "estimator" in human_log_odds:
        humans = human_log_odds[human_log_odds["estimator"] == MIXED_ESTIMATOR]
        ranking_empirical = me.compare_rankings(
            dict(zip(humans["group"], pd.to_numeric(humans["log_odds_ratio"]), strict=True)),
            dict(zip(empirical["group"], empirical["log_odds_ratio"], strict=True)),
        )
        report["kendall_empirical"] = {
            "tau": clean(ranking_empirical.tau),
            "p_value": clean(ranking_empirical.p_value),
            "n_groups": ranking_empirical.n_groups,
            "left_out": ranking_empirical.left_out,
            "message": ranking_empirical.message,
        }
    rows = answers.rename(columns={})[["model", "chart_id", "justification"]].merge(
        hmi, on="chart_id", how="left"
    )
    justifications = justification_report(rows, vocabularies(catalogue), charts=charts)
    report["justifications"] = {
        "per_model": table(justifications.per_model),
        "by_group": table(justifications.by_group),
    }
    if svg:
        report["svg"] = {
            "fact": me.fact_error_svg(fact.overall),
            "fact_groups": me.fact_group_svg(fact.by_group),
            "mind_scatter": me.mind_scatter_svg(predictions, hmi, metrics=mind, charts=charts),
            "mind_arrows": me.mind_arrows_svg(arrows),
            "log_odds": (
                me.log_odds_comparison_svg(human_log_odds, model_log_odds)
                if ranking is not None
                else ""
            ),
        }
    return report
