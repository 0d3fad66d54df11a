"""What the HMI dataset zip holds, described for core.datasets: the tables and their
columns, the chart images, the counts and dates, and how the data was collected."""

from __future__ import annotations

from django.db.models import Max, Min

from core.datasets import (
    Config,
    DatasetDescription,
    Field,
    FileSet,
    data_file,
    data_version,
    file_set,
)
from studies.benchmark_format import IMAGES_DIR, QUESTIONS_DIR
from studies.models import Response, Study
from studies.services.exports.replication import REPLICATION_FILES
from studies.services.exports.stopping_card import stopping_card_section

S, INT, N = "string", "integer", "number"
CHART_FIELDS = (
    Field("chart_id", S, "Chart id G<group>_Q<question>_<version> (CHARTOM naming)."),
    Field("group", S, "Group of charts sharing a chart type and manipulation (G1, G2 ...)."),
    Field("question", S, "Question id within the group (Q1, Q2 ...)."),
    Field("version", INT, "1 = non-manipulated, 2 = manipulated."),
    Field("chart_type", S, "The chart type (bar, line, pie ...)."),
    Field("manipulation", S, "The planted manipulation; none for version 1."),
    Field("answer_type", S, "How the FACT question is answered (multiple choice, number ...)."),
    Field("fact_question", S, "The FACT question participants answered about the chart."),
    Field("answer_key", S, "The correct answer to the FACT question, as the researcher wrote "
          "it; for multiple choice the option's number counted from 1, its text, or both."),
    Field("mind_question", S, "The MIND question: predict how many people answer wrongly."),
    Field("hmi", N, "Human Misleadingness Index: share of included participants who did not "
          "answer the FACT question correctly; empty when no included participant saw the chart.",
          unit="fraction 0-1"),
    Field("n", INT, "Included participants who were shown the chart.", unit="participants"),
    Field("ci_low", N, "Lower end of the 95% Wilson score interval of HMI.", unit="fraction 0-1"),
    Field("ci_high", N, "Upper end of the 95% Wilson score interval of HMI.", unit="fraction 0-1"),
    Field("note", S, "Why a number is missing or uncertain; empty otherwise."),
)  # fmt: skip
METADATA_FIELDS = (Field("file_name", S, "Path of the chart image in this folder."), *CHART_FIELDS)
LEGACY_FIELDS = tuple(
    Field(name, f.type, f.description, f.unit)
    for name, f in zip(
        ["chart id", "group", "question", "version", "chart type", "manipulation", "answer type",
         "FACT question", "answer key", "HMI", "n", "CI low", "CI high", "note"],
        [f for f in CHART_FIELDS if f.name != "mind_question"],
        strict=True,
    )
)  # fmt: skip
KEY_FIELDS = (
    Field("chart id", S, "The chart."),
    Field("answer type", S, "The answer type as the CHARTOM layout writes it."),
    Field(
        "answer",
        S,
        "The correct answer to the chart's FACT question, as written; for "
        "multiple choice the option's number counted from 1, its text, or both.",
    ),
)
MANIPULATION_FIELDS = (
    Field("chart id", S, "A chart id, or a pattern such as G1_*_2 for every chart it matches."),
    Field("chart type", S, "The chart type."),
    Field("planted manipulation", S, "The manipulation planted in the chart; none if honest."),
)
LANGUAGE_FIELDS = (
    Field("language", S, "The language participants took the study in (a code such as de)."),
    Field("chart_id", S, "The chart."),
    Field("version", INT, "1 = non-manipulated, 2 = manipulated."),
    Field("hmi", N, "HMI among the included participants of this language.", unit="fraction 0-1"),
    Field("n", INT, "Included participants of this language shown the chart.", unit="participants"),
    Field("ci_low", N, "Lower end of the 95% Wilson score interval.", unit="fraction 0-1"),
    Field("ci_high", N, "Upper end of the 95% Wilson score interval.", unit="fraction 0-1"),
)
TABLES = {
    "metadata.csv": ("hmi", METADATA_FIELDS, "The HMI table: one row per chart, with its image."),
    "HMI.csv": ("hmi_chartom", LEGACY_FIELDS, "The same HMI table with CHARTOM's column names."),
    "FACT_answer_keys.csv": ("answer_keys", KEY_FIELDS, "The FACT answer keys (CHARTOM layout)."),
    "chart_manipulations.csv": (
        "manipulations",
        MANIPULATION_FIELDS,
        "The chart types and planted manipulations (CHARTOM layout).",
    ),
    # Only in the zip of a study taken in more than one language.
    "HMI_by_language.csv": (
        "hmi_by_language",
        LANGUAGE_FIELDS,
        "HMI per chart among the included participants of each language.",
    ),
}
# Every file of the zip but the file sets below and the metadata itself:
# path -> (resource name, media type, fields (none: kept as it is), description).
FILES = {
    **{path: (name, "text/csv", fields, text) for path, (name, fields, text) in TABLES.items()},
    **REPLICATION_FILES,
}
MIND_DIR = "MIND_questions"


def _file_sets(contents: dict[str, bytes], image_type: str) -> tuple[FileSet, ...]:
    """The chart images and the question texts, one file per chart."""
    return tuple(
        file_set(name=name, glob=f"{folder}/*", media_type=kind, description=text, contents=contents)
        for name, folder, kind, text in (
            ("chart_images", IMAGES_DIR, image_type, "The chart images."),
            ("fact_questions", QUESTIONS_DIR, "text/plain",
             "Each chart's FACT question with its options, as participants read it."),
            ("mind_questions", MIND_DIR, "text/plain", "Each chart's MIND question."),
        )
    )  # fmt: skip


def _dates(study: Study):
    spans = Response.objects.filter(
        session__study=study, session__is_pilot=False, session__is_preview=False
    ).aggregate(first=Min("answered_at"), last=Max("answered_at"))
    first, last = spans["first"], spans["last"]
    return (first.date() if first else None), (last.date() if last else None)


def _rules_text(rules: dict) -> str:
    return (
        f"Exclusion rules: attention-check failures allowed: {rules['max_attention_failures']}; "
        f"minimum median time per chart: {rules['min_seconds_per_trial']:g} s (0 = off); "
        f"minimum time on any trial: {rules.get('min_trial_ms', 0)} ms (0 = off); completed "
        "sessions that left trials unanswered excluded: "
        f"{'yes' if rules['exclude_incomplete'] else 'no'}; timed-out, withdrawn, abandoned, "
        "pilot and preview sessions are never included."
    )


def _rai(study: Study, data: dict, pairs: int, dates) -> dict[str, str]:
    funnel = data["funnel"]
    checks = study.attention_checks.count()
    span = f" Answers from {dates[0]} to {dates[1]}." if dates[0] else ""
    return {
        "dataCollection": (
            f"A randomized within-subject chart study run on Chartroom: each participant saw "
            f"every chart of {pairs} pairs (a non-manipulated and a manipulated version of the "
            f"same data), one FACT question per chart, in an order balanced by participant "
            f"number with at least {study.min_gap} other trials between a pair's charts, and "
            f"{checks} attention checks.{span}"
        ),
        "dataCollectionType": "Crowdsourced online experiment",
        "dataAnnotationPlatform": f"Chartroom; participants recruited through "
        f"{study.platform_choice.label}.",
        "dataPreprocessingProtocol": _rules_text(data["rules"]),
        "annotatorDemographics": (
            f"{funnel['took_part']} participants took part, {funnel['excluded']} were excluded, "
            f"{funnel['included']} included. No demographics are collected. Pay is not recorded "
            "by the platform (it is set on the recruitment platform)."
        ),
        "personalSensitiveInformation": (
            "None: the dataset holds per-chart aggregates only. Participants are never named; "
            "the platform's per-participant exports show them as a per-study salted hash."
        ),
        "dataLimitations": " ".join(data["messages"]) or "None noted by the platform.",
    }


def _sections(study: Study, data: dict, definitions: dict) -> tuple[tuple[str, str], ...]:
    funnel, rules = data["funnel"], data["rules"]
    reasons = "\n".join(f"- {r['label']}: {r['n']}" for r in funnel["by_reason"]) or "- none"
    participants = (
        f"{funnel['took_part']} took part, {funnel['excluded']} excluded, "
        f"N = {funnel['included']} included.\n\nExcluded by reason:\n\n{reasons}"
    )
    rules_list = "\n".join(
        [
            f"- attention-check failures allowed: {rules['max_attention_failures']}",
            f"- minimum median time per chart: {rules['min_seconds_per_trial']:g} s (0 = off)",
            f"- minimum time on any trial: {rules.get('min_trial_ms', 0)} ms (0 = off)",
            "- completed sessions that left trials unanswered excluded: "
            f"{'yes' if rules['exclude_incomplete'] else 'no'}",
            "- timed-out, withdrawn, abandoned, pilot and preview sessions are never included",
        ]
    )
    how = "\n".join(f"- **{k}**: {v}" for k, v in definitions.items())
    notes = "\n".join(f"- {m}" for m in data["messages"]) or "- none"
    return (
        ("Participants", participants),
        ("Exclusion rules", rules_list),
        stopping_card_section(study),
        ("How HMI was computed", how),
        ("Estimator notes", notes),
        ("Chart layout", "`chart_images/`, `FACT_questions/`, `FACT_answer_keys.csv` and "
         "`chart_manipulations.csv` are the CHARTOM benchmark layout (they import into Chartroom "
         "again); `MIND_questions/<chart id>.txt` holds each chart's MIND question."),
    )  # fmt: skip


def hmi_description(
    *,
    study: Study,
    data: dict,
    contents: dict[str, bytes],
    image_type: str,
    definitions: dict,
) -> DatasetDescription:
    """The description of an HMI zip whose files are ``contents`` (path -> bytes)."""
    files = tuple(
        data_file(
            name=name,
            path=path,
            content=contents[path],
            media_type=media_type,
            description=text,
            fields=fields,
            rows=len(data["charts"]) if path in ("metadata.csv", "HMI.csv") else None,
        )
        for path, (name, media_type, fields, text) in FILES.items()
        if path in contents
    )
    dates = _dates(study)
    funnel = data["funnel"]
    return DatasetDescription(
        name=f"{study.slug}-hmi",
        title=f"HMI dataset: {study.title}",
        description=study.description
        or f"Human Misleadingness Index of {len(data['charts'])} charts from a chart study.",
        license=study.license,
        citation=study.citation,
        version=data_version(files),
        date_created=dates[0],
        date_modified=dates[1],
        creators=(study.owner.display_name,),
        keywords=("charts", "misleading visualizations", "human misleadingness index"),
        files=files,
        filesets=_file_sets(contents, image_type),
        configs=(
            Config("default", ("metadata.csv", "chart_images/*"), "the HMI table with the chart images", True),
        ),
        facts={
            "charts": len(data["charts"]),
            "pairs": len(data["charts"]) // 2,
            "participants_took_part": funnel["took_part"],
            "participants_excluded": funnel["excluded"],
            "participants_included": funnel["included"],
            **{
                f"participants_included_{lang['code']}": lang["participants"]
                for lang in (data.get("by_language") or {}).get("languages", [])
            },
        },
        rai=_rai(study, data, len(data["charts"]) // 2, dates),
        task_categories=("image-classification", "visual-question-answering"),
        card_sections=_sections(study, data, definitions),
    )  # fmt: skip
