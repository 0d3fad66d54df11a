"""Reads for model evaluation: the stored model answers as frames, and every analysis of them."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from django.core.cache import cache

from analysis import model_eval as me
from analysis.justifications import justification_report
from analysis.log_odds import MIXED_ESTIMATOR
from analysis.model_eval.frames import prediction_frame
from analysis.tables import natural_key
from studies.model_answers_format import ModelAnswerRow, ModelCoverage, coverage
from studies.models import ManipulationType, ModelAnswer, ModelRun, Study, StudyResults
from studies.selectors.model_eval_tables import clean, table
from studies.selectors.results import chart_catalogue

if TYPE_CHECKING:
    import pandas as pd

ANSWER_COLUMNS = ["model", "chart_id", "correct", "prediction", "justification", "mind_answer"]


def model_runs(study: Study) -> list[ModelRun]:
    return list(ModelRun.objects.filter(study=study).order_by("model"))


def model_answer_frame(study: Study) -> pd.DataFrame:
    import pandas as pd

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
    # Sorted here rather than by the database, whose collation decides the order
    # of names and ids differently on SQLite and PostgreSQL: exports must not differ.
    rows = sorted(rows, key=lambda r: (r[0], natural_key(r[1])))
    frame = pd.DataFrame(rows, columns=ANSWER_COLUMNS)
    frame["correct"] = frame["correct"].astype(object)
    return frame


def analysis_charts(catalogue: pd.DataFrame) -> pd.DataFrame:
    """chart_id, group, question, version, manipulation (the label on manipulated charts)."""
    charts = catalogue[["chart_id", "group", "question", "version"]].copy()
    charts["manipulation"] = np.where(
        catalogue["version"] == 2, catalogue["manipulation_label"], None
    )
    return charts


@dataclass(frozen=True)
class HumanSnapshot:
    """What the study's last computed results say about its included participants."""

    hmi: pd.DataFrame  # chart_id, hmi
    counts: pd.DataFrame  # chart_id, n, n_wrong
    log_odds: pd.DataFrame  # the humans' log odds rows, every estimator
    participants: int | None
    computed_at: str | None


def human_snapshot(study: Study) -> HumanSnapshot:
    """The humans' side of the model comparison, from the last computed results.

    The models are compared with the same snapshot the results page shows, so
    the HMI they are scored against and the humans' error rates beside them
    come from one set of included participants.
    """
    import pandas as pd

    snapshot = StudyResults.objects.filter(study=study).values_list("data", "computed_at").first()
    data, computed_at = snapshot or ({}, None)
    data = data or {}
    charts = data.get("charts", [])
    hmi = pd.DataFrame(
        [{"chart_id": c["chart_id"], "hmi": c.get("hmi")} for c in charts],
        columns=["chart_id", "hmi"],
    )
    hmi["hmi"] = pd.to_numeric(hmi["hmi"], errors="coerce").astype(float)
    counts = pd.DataFrame(
        [
            {"chart_id": c["chart_id"], "n": c.get("n"), "n_wrong": c.get("n_wrong")}
            for c in charts
            if c.get("n") is not None and c.get("n_wrong") is not None
        ],
        columns=["chart_id", "n", "n_wrong"],
    )
    return HumanSnapshot(
        hmi=hmi,
        counts=counts,
        log_odds=pd.DataFrame(data.get("log_odds") or []),
        participants=(data.get("funnel") or {}).get("included"),
        computed_at=computed_at.isoformat() if computed_at else None,
    )


def human_hmi(study: Study) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(chart_id, hmi) and the humans' log odds rows, from the last computed results."""
    snapshot = human_snapshot(study)
    return snapshot.hmi, snapshot.log_odds


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


def _coverage(study_answers: pd.DataFrame, chart_ids: list[str]) -> list[dict]:
    import pandas as pd

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
    return [coverage_dict(c) for c in coverage(rows, chart_ids)]


def coverage_dict(c: ModelCoverage) -> dict:
    """One model's coverage as the import report and the evaluation page show it."""
    return {
        "model": c.model,
        "total": c.total,
        "answered": c.answered,
        "fact_answered": c.fact_answered,
        "mind_answered": c.mind_answered,
        "coverage": c.coverage,
        "missing": c.missing,
    }


# ------------------------------------------------------------------ the report

# Bump when the report's content or shape changes, so reports cached by an older
# version are not served after a deploy.
REPORT_VERSION = 4  # 3: figures without inline CSS; 4: column kinds, heat map labels
REPORT_CACHE_SECONDS = 6 * 60 * 60

PREDICTION_COLUMNS = [
    "model",
    "chart_id",
    "group",
    "version",
    "manipulation",
    "hmi",
    "prediction",
    "abs_error",
]


def humans_label(models) -> str:
    """The humans' label beside the models: "Humans", unless a model already has that name."""
    return me.HUMANS if me.HUMANS not in set(models) else f"{me.HUMANS} (participants)"


def _fingerprint(*parts) -> str:
    import pandas as pd

    digest = hashlib.sha256()
    for part in parts:
        text = part.to_csv(index=False) if isinstance(part, pd.DataFrame) else repr(part)
        digest.update(text.encode())
        digest.update(b"\0")
    return digest.hexdigest()


def report_cache_key(study: Study, *, catalogue, answers, words, svg: bool, seed: int) -> str:
    """The report's cache key: a digest of every input, so any change is a new key.

    The inputs are the chart catalogue, every stored model answer (so a
    re-import, a removal or a runner's new answer changes the key), the
    manipulation vocabularies, and the id and time of the last computed results
    (the humans' side). Nothing needs deleting when they change; stale entries
    just expire.
    """
    results = StudyResults.objects.filter(study=study).values_list("pk", "computed_at").first()
    state = _fingerprint(
        REPORT_VERSION,
        catalogue,
        answers,
        sorted(words.items()),
        results,
        (svg, seed),
    )
    return f"studies:model-eval:{study.pk}:{state}"


def _predictions_table(predictions, hmi, charts) -> pd.DataFrame:
    joined = prediction_frame(predictions, hmi)
    joined = joined.merge(
        charts[["chart_id", "group", "version", "manipulation"]], on="chart_id", how="left"
    )
    joined["abs_error"] = (joined["prediction"] - joined["hmi"]).abs()
    return joined[PREDICTION_COLUMNS]


def _ranking(result) -> dict:
    return {
        "tau": clean(result.tau, None),
        "p_value": clean(result.p_value, None),
        "n_groups": result.n_groups,
        "groups": list(result.groups),
        "left_out": result.left_out,
        "message": result.message,
    }


def _human_rates(humans: HumanSnapshot, charts: pd.DataFrame, label: str):
    """The humans' FACT rates, or None with the reason."""
    if humans.computed_at is None:
        return None, "Compute the study's results to see the humans beside the models."
    counts = humans.counts[humans.counts["chart_id"].isin(set(charts["chart_id"]))]
    if counts.empty or int(counts["n"].sum()) == 0:
        return None, "The study's results have no included participants to set beside the models."
    try:
        return me.human_fact_rates(counts, charts, label=label), None
    except ValueError as exc:
        return None, f"The humans' FACT error rates could not be computed: {exc}"


def _fact_section(report: dict, answers, charts, humans: HumanSnapshot, label: str):
    """The FACT error rates of the models, with the humans' beside them when there are any.

    Returns (overall, by_group, human_rates) for the figures.
    """
    import pandas as pd

    fact = me.fact_error_rates(answers[["model", "chart_id", "correct"]], charts)
    human_rates, why = _human_rates(humans, charts, label)
    overall, by_group, chi = fact.overall, fact.by_group, fact.chi_square
    if human_rates is None:
        report["messages"].append(why)
    else:
        # Humans first, as the paper's Figure 3 sets them before the models.
        overall = pd.concat([human_rates.overall, overall], ignore_index=True)
        by_group = pd.concat([human_rates.by_group, by_group], ignore_index=True)
        chi = pd.concat([human_rates.chi_square, chi], ignore_index=True)
        report["humans"] = {
            "label": label,
            "participants": humans.participants,
            "trials": int(human_rates.overall.set_index("scope").loc["all", "n"]),
            "results_computed_at": humans.computed_at,
        }
    report["fact"] = {
        "overall": table(overall, digits=None),
        "by_group": table(by_group, digits=None),
        "chi_square": table(chi, digits=None),
    }
    return overall, by_group, human_rates


def _log_odds_section(report: dict, answered, charts, human_log_odds, seed: int):
    """The models' log odds ratios and their rank agreement with the humans'.

    Returns (model_log_odds, ranking), ranking None when either side has no estimate.
    """
    import pandas as pd

    model_log_odds = pd.DataFrame()
    try:
        model_log_odds = me.model_population_log_odds(
            answered, charts, seed=seed, include_gee=False
        )
    except ValueError as exc:
        report["messages"].append(f"No model-population log odds: {exc}")
    report["log_odds"] = {
        "models": table(model_log_odds, digits=None),
        "humans": table(human_log_odds, digits=None),
    }
    ranking = None
    report["kendall"] = None
    if not model_log_odds.empty and not human_log_odds.empty:
        ranking = me.compare_rankings(human_log_odds, model_log_odds)
        report["kendall"] = _ranking(ranking)
    # The mixed model leaves out every group where all models got the plain (or the
    # manipulated) charts right, which is common for models; the pooled empirical
    # estimate stays finite there, so it ranks more groups.
    empirical = me.empirical_log_odds(answered, charts)
    report["log_odds"]["models_empirical"] = table(empirical, digits=None)
    report["kendall_empirical"] = None
    if not human_log_odds.empty and "estimator" in human_log_odds:
        mixed = human_log_odds[human_log_odds["estimator"] == MIXED_ESTIMATOR]
        ranking_empirical = me.compare_rankings(
            dict(zip(mixed["group"], pd.to_numeric(mixed["log_odds_ratio"]), strict=True)),
            dict(zip(empirical["group"], empirical["log_odds_ratio"], strict=True)),
        )
        report["kendall_empirical"] = _ranking(ranking_empirical)
    return model_log_odds, ranking


def _build_report(
    study: Study,
    *,
    catalogue: pd.DataFrame,
    answers: pd.DataFrame,
    words: dict,
    svg: bool,
    seed: int,
    progress=None,
) -> dict:
    """Every analysis at full precision; :func:`model_eval_report` rounds for display."""
    step = progress or (lambda fraction, message="": None)
    step(0.1, "FACT error rates")
    humans = human_snapshot(study)
    hmi, human_log_odds = humans.hmi, humans.log_odds
    models = sorted(set(answers["model"]))
    report: dict = {
        "models": models,
        "coverage": [],
        "has_hmi": bool(hmi["hmi"].notna().any()),
        "humans": None,
        "seed": seed,
        "estimators": ESTIMATORS,
        "messages": [],
    }
    if answers.empty or catalogue.empty:
        report["messages"].append(NO_ANSWERS)
        return report
    charts = analysis_charts(catalogue)
    report["coverage"] = _coverage(answers, list(catalogue["chart_id"]))
    label = humans_label(models)
    overall, by_group, human_rates = _fact_section(report, answers, charts, humans, label)
    step(0.3, "MIND predictions")
    predictions = answers[["model", "chart_id", "prediction"]]
    mind = me.mind_metrics(predictions, hmi)
    arrows = me.mind_group_arrows(predictions, hmi, charts)
    report["mind"] = {
        "metrics": table(mind, digits=None),
        "arrows": table(arrows, digits=None),
        "predictions": table(_predictions_table(predictions, hmi, charts), digits=None),
    }
    if not report["has_hmi"]:
        report["messages"].append(
            "The study has no computed HMI yet: compute the results to score MIND predictions."
        )
    answered = answers[answers["correct"].notna()][["model", "chart_id", "correct"]]
    step(0.4, "Fitting the model-population mixed model")
    model_log_odds, ranking = _log_odds_section(report, answered, charts, human_log_odds, seed)
    rows = answers[["model", "chart_id", "justification"]].merge(hmi, on="chart_id", how="left")
    justifications = justification_report(rows, words, charts=charts)
    report["justifications"] = {
        "per_model": table(justifications.per_model, digits=None),
        "by_group": table(justifications.by_group, digits=None),
        "charts": table(justifications.charts, digits=None),
    }
    if svg:
        step(0.8, "Drawing the figures")
        human_name = label if human_rates is not None else None
        report["svg"] = _figures(
            overall, by_group, predictions, hmi, mind, charts, arrows, human_name,
            human_log_odds, model_log_odds, ranking is not None,
        )  # fmt: skip
    return report


def _figures(
    overall, by_group, predictions, hmi, mind, charts, arrows, human_name,
    human_log_odds, model_log_odds, ranked: bool,
) -> dict:  # fmt: skip
    return {
        "fact": me.fact_error_svg(overall, humans=human_name),
        "fact_groups": me.fact_group_svg(by_group, humans=human_name),
        "mind_scatter": me.mind_scatter_svg(predictions, hmi, metrics=mind, charts=charts),
        "mind_arrows": me.mind_arrows_svg(arrows),
        "log_odds": (me.log_odds_comparison_svg(human_log_odds, model_log_odds) if ranked else ""),
    }


NO_ANSWERS = "No model answers imported yet."

ESTIMATORS = {
    "fact_interval": "Wilson score interval, 95%, each answer one trial",
    "chi_square": "Pearson chi-square on the 2x2 table, Yates continuity correction",
    "mind_fit": "Least squares fit of predicted on measured HMI; Pearson r (scipy.stats.pearsonr)",
    "log_odds_models": MIXED_ESTIMATOR + ", the model as random effect",
    "log_odds_models_empirical": me.EMPIRICAL_ESTIMATOR,
    "log_odds_humans": MIXED_ESTIMATOR + ", the participant as random effect",
    "kendall": "Kendall's tau-b (scipy.stats.kendalltau)",
    "justification_interval": "Wilson score interval, 95%",
}


def _rounded(value, digits: int):
    if isinstance(value, dict):
        return {k: _rounded(v, digits) for k, v in value.items()}
    if isinstance(value, list):
        return [_rounded(v, digits) for v in value]
    if isinstance(value, float):
        return round(value, digits)
    return value


def model_eval_report(
    study: Study,
    *,
    svg: bool = True,
    seed: int | None = None,
    digits: int | None = 4,
    compute: bool = True,
    report=None,
) -> dict | None:
    """Every analysis of the study's model answers beside the humans, JSON-ready.

    Empty parts say why in ``messages``. Building it fits a mixed model and
    draws five figures (about 1.4 s for the demo study), so the full-precision
    report is cached under :func:`report_cache_key`; reading the inputs for the
    key is a few small queries. ``seed`` (default: the study's) feeds the mixed
    model's fit; ``digits`` rounds floats for display (None keeps full
    precision, as the file export does), so the page and the export share one
    cached report. With ``compute=False`` a report not in the cache is None (the page
    then has a job build it); ``report(progress, message)`` hears of each step.
    """
    seed = study.seed if seed is None else seed
    catalogue = chart_catalogue(study)
    answers = model_answer_frame(study)
    words = vocabularies(catalogue)
    key = report_cache_key(
        study, catalogue=catalogue, answers=answers, words=words, svg=svg, seed=seed
    )
    found = cache.get(key)
    if found is None:
        if not compute:
            return None
        found = _build_report(
            study,
            catalogue=catalogue,
            answers=answers,
            words=words,
            svg=svg,
            seed=seed,
            progress=report,
        )
        cache.set(key, found, REPORT_CACHE_SECONDS)
    return found if digits is None else _rounded(found, digits)
