"""The model analyses as a file: one CSV per table, report.json, the SVG figures and a README.

Every number comes from one :func:`studies.selectors.model_eval.model_eval_report`
call at full precision, so the CSVs, report.json and the figures agree with
each other and with the Models page. The content is deterministic: the same
answers, results snapshot, seed and generation time give the same bytes.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

from analysis.justifications import BY_GROUP_COLUMNS as JUSTIFICATION_GROUP_COLUMNS
from analysis.justifications import CHART_COLUMNS as JUSTIFICATION_CHART_COLUMNS
from analysis.justifications import PER_MODEL_COLUMNS as JUSTIFICATION_MODEL_COLUMNS
from analysis.log_odds import LOG_ODDS_COLUMNS as FIT_COLUMNS
from analysis.model_eval.fact import CHI_SQUARE_COLUMNS, GROUP_COLUMNS, OVERALL_COLUMNS
from analysis.model_eval.mind import ARROW_COLUMNS, METRIC_COLUMNS
from core.csv_safety import csv_writer
from studies.models import Study
from studies.selectors.model_eval import NO_ANSWERS, PREDICTION_COLUMNS, model_eval_report

LIST_SEPARATOR = "; "
LOG_ODDS_COLUMNS = ["population", *FIT_COLUMNS]
KENDALL_COLUMNS = [
    "comparison",
    "humans_estimator",
    "models_estimator",
    "tau",
    "p_value",
    "n_groups",
    "groups",
    "message",
]
LEFT_OUT_COLUMNS = ["comparison", "group", "reason"]
COVERAGE_COLUMNS = [
    "model",
    "total",
    "answered",
    "fact_answered",
    "mind_answered",
    "coverage",
    "missing",
]
FIGURES = {
    "fact": ("figures/fact_error_rates.svg", "FACT error rate per model and humans (Figure 3)"),
    "fact_groups": (
        "figures/fact_error_rates_by_group.svg",
        "FACT error rate per group, humans first (Figure 6)",
    ),
    "mind_scatter": ("figures/mind_predicted_vs_hmi.svg", "MIND predicted vs HMI (Figure 5)"),
    "mind_arrows": ("figures/mind_group_arrows.svg", "MIND per group, HMI to prediction (Fig. 7)"),
    "log_odds": ("figures/log_odds.svg", "Log odds ratio per group, humans and models (Fig. 4)"),
}


class ModelEvalExportError(Exception):
    """The study has nothing to export yet; the message says what to do."""


# ------------------------------------------------------------------ the data dictionary

# Meanings shared by several files; a file overrides what it means differently.
COMMON = {
    "model": "Model name as imported, or the label of the study's included participants "
    "(Humans; see the header).",
    "scope": "Which charts: non-manipulated (_1), manipulated (_2) or all.",
    "group": "Manipulation group code (G1, G2, ...), one pair of charts per question.",
    "manipulation": "The manipulation planted in the group's manipulated charts.",
    "chart_id": "Chart id, G<group>_Q<question>_<1 non-manipulated | 2 manipulated>.",
    "version": "1 = non-manipulated, 2 = manipulated.",
    "n": "Answers counted.",
    "n_errors": "Of n, answers that were not correct.",
    "error_rate": "n_errors / n.",
    "ci_low": "Lower end of the 95% Wilson score interval.",
    "ci_high": "Upper end of the 95% Wilson score interval.",
    "hmi": "Human Misleadingness Index of the chart: share of included participants who did "
    "not answer its FACT question correctly (CHARTOM 4.2).",
    "message": "Why a value is missing or needs care; empty when all is well.",
}


def _columns(names, **meanings) -> tuple[tuple[str, str], ...]:
    return tuple((name, meanings.get(name) or COMMON[name]) for name in names)


@dataclass(frozen=True)
class CsvFile:
    name: str
    description: str
    columns: tuple[tuple[str, str], ...]
    rows: Callable[[dict], list[dict]]

    @property
    def header(self) -> list[str]:
        return [name for name, _ in self.columns]


def _records(part: dict | None) -> list[dict]:
    if not part:
        return []
    return [dict(zip(part["columns"], row, strict=True)) for row in part["rows"]]


def _log_odds_rows(report: dict) -> list[dict]:
    parts = report.get("log_odds") or {}
    rows = []
    for key, population in (
        ("models", "models"),
        ("models_empirical", "models"),
        ("humans", "humans"),
    ):
        rows += [{"population": population, **r} for r in _records(parts.get(key))]
    return rows


_COMPARISONS = (
    ("kendall", "mixed vs mixed", "log_odds_models"),
    ("kendall_empirical", "mixed vs empirical", "log_odds_models_empirical"),
)


def _kendall_rows(report: dict) -> list[dict]:
    rows = []
    for key, comparison, models_estimator in _COMPARISONS:
        result = report.get(key) or {
            "message": "needs log odds ratios for both the models and the humans"
        }
        rows.append(
            {
                "comparison": comparison,
                "humans_estimator": report["estimators"]["log_odds_humans"],
                "models_estimator": report["estimators"][models_estimator],
                **{k: result.get(k) for k in ("tau", "p_value", "n_groups", "groups", "message")},
            }
        )
    return rows


def _left_out_rows(report: dict) -> list[dict]:
    rows = []
    for key, comparison, _ in _COMPARISONS:
        left_out = (report.get(key) or {}).get("left_out") or {}
        rows += [{"comparison": comparison, "group": g, "reason": r} for g, r in left_out.items()]
    return rows


def _part(*path) -> Callable[[dict], list[dict]]:
    def rows(report: dict) -> list[dict]:
        part = report
        for key in path:
            part = (part or {}).get(key)
        return _records(part)

    return rows


MODEL = "Model name as imported."
RATE = {
    "model": COMMON["model"],
    "n": "Charts answered (models) or included participant x chart trials (humans) in scope.",
    "n_errors": "Of n, wrong answers; for humans an unanswered trial counts as wrong, as in HMI.",
}
CSV_FILES = (
    CsvFile(
        "fact_error_rates.csv",
        "FACT error rate per model and scope, the humans first (CHARTOM Figure 3).",
        _columns(OVERALL_COLUMNS, **RATE),
        _part("fact", "overall"),
    ),
    CsvFile(
        "fact_error_rates_by_group.csv",
        "FACT error rate per model (humans first), group and version (Figure 6).",
        _columns(GROUP_COLUMNS, **RATE, scope="non-manipulated or manipulated."),
        _part("fact", "by_group"),
    ),
    CsvFile(
        "fact_chi_square.csv",
        "Chi-square test of errors on manipulated vs non-manipulated charts, per model "
        "(and the humans pooled), section 5.1.",
        _columns(
            CHI_SQUARE_COLUMNS,
            model=COMMON["model"],
            n_non_manipulated="Non-manipulated answers (trials for humans).",
            errors_non_manipulated="Of those, errors.",
            n_manipulated="Manipulated answers (trials for humans).",
            errors_manipulated="Of those, errors.",
            chi2="Pearson's chi-square statistic on [[errors, correct] x version].",
            dof="Degrees of freedom (1).",
            p_value="Two-sided p-value.",
            yates_correction="True when Yates' continuity correction was applied.",
        ),
        _part("fact", "chi_square"),
    ),
    CsvFile(
        "mind_metrics.csv",
        "MIND: how well each model predicts HMI (Table 2, Figure 5), over charts with both a "
        "prediction and an HMI.",
        _columns(
            METRIC_COLUMNS,
            model=MODEL,
            n="Charts with both a prediction and an HMI.",
            n_without_prediction="Charts the model gave no readable prediction for.",
            n_without_hmi="Predicted charts without an HMI (no included participant).",
            mae="Mean absolute error |prediction - HMI|.",
            mae_sd="Sample standard deviation (ddof 1) of the absolute errors.",
            pearson_r="Pearson correlation of prediction with HMI.",
            pearson_p="Two-sided p-value of pearson_r.",
            slope="Least squares slope of prediction on HMI.",
            intercept="Least squares intercept of prediction on HMI.",
            r_squared="pearson_r squared.",
        ),
        _part("mind", "metrics"),
    ),
    CsvFile(
        "mind_predictions.csv",
        "MIND: every model's prediction per chart beside the chart's HMI.",
        _columns(
            PREDICTION_COLUMNS,
            model=MODEL,
            manipulation="The manipulation of the chart (empty on non-manipulated charts).",
            prediction="The model's predicted share of people misled, in [0, 1]; empty when "
            "its answer had no readable number.",
            abs_error="|prediction - hmi|; empty when either is missing.",
        ),
        _part("mind", "predictions"),
    ),
    CsvFile(
        "mind_group_arrows.csv",
        "MIND per model and group: mean HMI and mean prediction per version, over the charts "
        "with both (Figure 7's arrows run from HMI to prediction).",
        _columns(
            ARROW_COLUMNS,
            model=MODEL,
            n_non_manipulated="Non-manipulated charts averaged.",
            hmi_non_manipulated="Mean HMI of those charts.",
            predicted_non_manipulated="Mean prediction on those charts.",
            n_manipulated="Manipulated charts averaged.",
            hmi_manipulated="Mean HMI of those charts.",
            predicted_manipulated="Mean prediction on those charts.",
        ),
        _part("mind", "arrows"),
    ),
    CsvFile(
        "log_odds.csv",
        "Log odds ratio of an error, manipulated vs non-manipulated, per group: the model "
        "population (mixed model with the model as random effect, and the pooled empirical "
        "estimate) and the humans (from the study results) (section 5.2, Figure 4).",
        _columns(
            LOG_ODDS_COLUMNS,
            population="models or humans.",
            estimator="How the row was estimated (see Estimators above).",
            n_trials="Answers in the group used by the fit.",
            p_n="Estimated error probability on the group's non-manipulated charts.",
            p_m="Estimated error probability on the group's manipulated charts.",
            log_odds_ratio="log((p_m / (1 - p_m)) / (p_n / (1 - p_n))).",
            se="Standard error (posterior SD for the mixed model).",
            ci_low="Lower end of the interval named in `interval`.",
            ci_high="Upper end of the interval named in `interval`.",
            interval="Which interval ci_low and ci_high give.",
        ),
        _log_odds_rows,
    ),
    CsvFile(
        "kendall_tau.csv",
        "Kendall's tau between the humans' and the models' ranking of groups by log odds "
        "ratio (the paper found 0.60), for the models' mixed and empirical estimates.",
        (
            ("comparison", "Humans' estimator vs the models' estimator."),
            ("humans_estimator", "Estimator of the humans' log odds ratios."),
            ("models_estimator", "Estimator of the models' log odds ratios."),
            ("tau", "Kendall's tau-b over the groups ranked on both sides."),
            ("p_value", "Two-sided p-value of tau."),
            ("n_groups", "Groups with a finite log odds ratio on both sides."),
            ("groups", "Those groups, separated by '; '."),
            ("message", COMMON["message"]),
        ),
        _kendall_rows,
    ),
    CsvFile(
        "kendall_left_out.csv",
        "Groups left out of each Kendall's tau, with the reason.",
        (
            ("comparison", "As in kendall_tau.csv."),
            ("group", COMMON["group"]),
            ("reason", "Why the group has no usable log odds ratio on one side."),
        ),
        _left_out_rows,
    ),
    CsvFile(
        "justifications_per_model.csv",
        "Per model: how often its MIND justification names the manipulation planted in the "
        "chart (vocabulary matching), and the link with HMI.",
        _columns(
            JUSTIFICATION_MODEL_COLUMNS,
            model=MODEL,
            n_manipulated="Manipulated charts the model answered.",
            n_scored="Of those, charts with a justification and a vocabulary.",
            n_named="Of n_scored, justifications naming the planted manipulation.",
            share_named="n_named / n_scored.",
            ci_low="Lower end of the 95% Wilson interval of share_named.",
            ci_high="Upper end of the 95% Wilson interval of share_named.",
            n_plain_scored="Non-manipulated partner charts scored.",
            n_plain_named="Of those, justifications naming the pair's manipulation anyway.",
            false_alarm_rate="n_plain_named / n_plain_scored.",
            mean_hmi_named="Mean HMI of the manipulated charts where it was named.",
            mean_hmi_not_named="Mean HMI of the manipulated charts where it was not named.",
            hmi_r="Point-biserial correlation of HMI with the named flag.",
            hmi_p="Two-sided p-value of hmi_r.",
        ),
        _part("justifications", "per_model"),
    ),
    CsvFile(
        "justifications_by_group.csv",
        "Per model and group: share of the group's manipulated charts whose justification "
        "names the manipulation.",
        _columns(
            JUSTIFICATION_GROUP_COLUMNS,
            model=MODEL,
            hmi="Mean HMI of the group's scored manipulated charts.",
            n_scored="Scored manipulated charts.",
            n_named="Of those, justifications naming the manipulation.",
            share_named="n_named / n_scored.",
        ),
        _part("justifications", "by_group"),
    ),
    CsvFile(
        "justifications_charts.csv",
        "Per model and chart: whether the justification names the pair's planted manipulation.",
        _columns(
            JUSTIFICATION_CHART_COLUMNS,
            model=MODEL,
            manipulation="The manipulation planted in the chart's pair (also on its _1 chart).",
            named="True / False; empty when not scored (see status).",
            phrases="Vocabulary phrases found, not negated, separated by '; '.",
            negated="Phrases found only negated, separated by '; '.",
            status="Why the chart was not scored; empty when it was.",
        ),
        _part("justifications", "charts"),
    ),
    CsvFile(
        "coverage.csv",
        "Per model: how many of the study's charts it answered.",
        (
            ("model", MODEL),
            ("total", "Charts in the study."),
            ("answered", "Charts with a FACT or a MIND answer."),
            ("fact_answered", "Charts with a FACT answer."),
            ("mind_answered", "Charts with a readable MIND prediction."),
            ("coverage", "answered / total."),
            ("missing", "Charts without any answer, separated by '; '."),
        ),
        lambda report: report.get("coverage") or [],
    ),
)


# ------------------------------------------------------------------ writing


def _cell(value):
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        return LIST_SEPARATOR.join(str(v) for v in value)
    return value


def csv_text(spec: CsvFile, report: dict) -> str:
    buffer = io.StringIO()
    writer = csv_writer(buffer, lineterminator="\n")
    writer.writerow(spec.header)
    for row in spec.rows(report):
        writer.writerow([_cell(row.get(column)) for column in spec.header])
    return buffer.getvalue()


def _readme(study: Study, report: dict, generated_at: datetime, files: list[str]) -> str:
    humans = report.get("humans")
    if humans:
        who = (
            f"{humans['participants']} included participants ({humans['trials']} chart "
            f'trials), labelled "{humans["label"]}" in the tables, from the study results '
            f"computed at {humans['results_computed_at']}"
        )
    else:
        who = "none (the study has no computed results with included participants)"
    lines = [
        f'Model analyses of the study "{study.title}"',
        "",
        f"Study: {study.slug}",
        f"Generated: {generated_at.isoformat()}",
        f"Seed: {report['seed']} (starting values of the mixed model's variational fit)",
        f"Models: {', '.join(report['models'])}",
        f"Humans: {who}",
        "",
        "Estimators",
        *[f"- {name}: {text}" for name, text in report["estimators"].items()],
        "",
        "Conventions",
        "- CSV files are UTF-8, comma-separated, with a header row.",
        "- An empty cell is a value that is not available (undefined, or no data); the",
        "  row's message column usually says why.",
        f"- Lists in a cell are separated by '{LIST_SEPARATOR}'. Booleans are True / False.",
        "- Numbers are at full precision. The Models page rounds them to 4 decimals.",
        "- Rows: the humans first, then the models by name; groups and charts in natural",
        "  order (G2 before G10).",
        "- Models' rates are over what each model answered (see coverage.csv). For the",
        "  humans an unanswered trial counts as an error, as in HMI.",
        "- report.json holds the same tables as {columns, rows}, plus the study, the",
        "  generation time, the seed, the estimators and the notes below.",
        "",
        "Files",
        "- README.txt: this file.",
        "- report.json: every table below in one JSON document.",
    ]
    for spec in CSV_FILES:
        lines.append(f"- {spec.name}: {spec.description}")
        lines += [f"    {name}: {meaning}" for name, meaning in spec.columns]
    for key, (name, description) in FIGURES.items():
        if name in files:
            lines.append(f"- {name}: {description}.")
        elif key == "log_odds":
            lines.append(f"- {name}: not written; Kendall's tau needs both sides' log odds.")
    if report["messages"]:
        lines += ["", "Notes", *[f"- {m}" for m in report["messages"]]]
    return "\n".join(lines) + "\n"


def _entry(archive: zipfile.ZipFile, name: str, text: str, stamp: tuple) -> None:
    # A fixed time and mode per entry, so equal content gives an equal zip.
    info = zipfile.ZipInfo(name, date_time=stamp)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    archive.writestr(info, text.encode("utf-8"))


def model_eval_export_filename(study: Study) -> str:
    return f"{study.slug}-model-analyses.zip"


def model_eval_export_write(
    *, study: Study, out, seed: int | None = None, generated_at: datetime | None = None
) -> list[str]:
    """Write the zip of the study's model analyses to ``out`` (a path or binary file).

    Raises :class:`ModelEvalExportError` before writing anything when the study
    has no model answers. Returns the names written, in order.
    """
    report = model_eval_report(study, svg=True, seed=seed, digits=None)
    if not report["models"]:
        raise ModelEvalExportError(
            f"{NO_ANSWERS} Import model answers on the study's Models page, with the API or "
            "`manage.py import_model_answers`, then export again."
        )
    generated_at = generated_at or timezone.now()
    stamp = generated_at.timetuple()[:6]
    figures = report.get("svg") or {}
    files = {spec.name: csv_text(spec, report) for spec in CSV_FILES}
    for key, (name, _) in FIGURES.items():
        if figures.get(key):
            files[name] = figures[key]
    document = {
        "study": {"slug": study.slug, "title": study.title},
        "generated_at": generated_at.isoformat(),
        "figures": [name for name in files if name.endswith(".svg")],
        **{k: v for k, v in report.items() if k != "svg"},
    }
    files["report.json"] = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    files["README.txt"] = _readme(study, report, generated_at, list(files))
    order = [
        "README.txt",
        "report.json",
        *[n for n in files if n not in ("README.txt", "report.json")],
    ]
    with zipfile.ZipFile(out, "w") as archive:
        for name in order:
            _entry(archive, name, files[name], stamp)
    return order
