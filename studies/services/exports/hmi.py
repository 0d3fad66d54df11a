"""The HMI dataset: the study's charts in the CHARTOM layout plus HMI.csv, MIND questions
and a README data card; or the same numbers as JSON."""

from __future__ import annotations

import io
import json
import zipfile

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils import timezone

from core.csv_safety import csv_writer
from studies.benchmark_format import ChartRecord, parse_chart_id, write_benchmark
from studies.images import ImageRejected, validate_image
from studies.models import Chart, Study
from studies.services.results.compute import results_compute

HMI_COLUMNS = [
    "chart id", "group", "question", "version", "chart type", "manipulation", "answer type",
    "FACT question", "answer key", "HMI", "n", "CI low", "CI high", "note",
]  # fmt: skip

DEFINITIONS = {
    "HMI": "Human Misleadingness Index of a chart: the fraction of included participants who "
    "did not answer its FACT question correctly; an unanswered question counts as not correct "
    "(CHARTOM paper, section 4.2).",
    "n": "Included participants who were shown the chart.",
    "CI": "95% Wilson score interval of HMI (Wilson 1927).",
    "version": "1 = non-manipulated, 2 = manipulated (chart ids end in _1 or _2).",
    "included": "Completed, not a pilot or preview session, within the study's exclusion rules, "
    "unless a researcher overrode the decision (with a logged reason).",
}


def _charts(study: Study):
    return (
        Chart.objects.filter(question__study_pairs__study=study)
        .select_related("question__group", "manipulation")
        .order_by("chart_id")
    )


def _record(chart: Chart) -> ChartRecord:
    parsed = parse_chart_id(chart.chart_id)
    if parsed is None or str(parsed) != chart.chart_id:
        raise ValidationError(
            f"{chart.chart_id} does not follow the CHARTOM naming G<group>_Q<question>_<1|2>, "
            "so the dataset cannot be written in that layout; export it as JSON instead."
        )
    try:
        with chart.image.open("rb") as handle:
            image = validate_image(
                handle.read(),
                max_bytes=settings.CHARTROOM_MAX_IMAGE_BYTES,
                max_pixels=settings.CHARTROOM_MAX_IMAGE_PIXELS,
            )
    except (OSError, ImageRejected):
        raise ValidationError(f"The image of {chart.chart_id} is missing or damaged.") from None
    question = chart.question
    return ChartRecord(
        chart_id=chart.chart_id,
        group=question.group.code,
        question_id=question.code,
        version=chart.version,
        chart_type=question.group.chart_type,
        manipulation=chart.manipulation.slug,
        manipulation_label=chart.manipulation.label if chart.version == 2 else "none",
        answer_type=question.answer_type,
        question_text=question.text,
        question=question.stem,
        options=list(question.options),
        answer_key=question.answer_key,
        answer_value=question.key_value,
        image=image,
    )


def _number(value):
    return "" if value is None else value


def hmi_rows(data: dict) -> list[list]:
    rows = []
    for c in data["charts"]:
        rows.append(
            [
                c["chart_id"], c["group"], c["question"], c["version"], c["chart_type"],
                c["manipulation"] if c["version"] == 2 else "none", c["answer_type"],
                c.get("fact_question", ""), c.get("answer_key", ""),
                _number(c["hmi"]), c["n"], _number(c["ci_low"]), _number(c["ci_high"]),
                c["note"] or "",
            ]
        )  # fmt: skip
    return rows


def hmi_dataset(study: Study) -> dict:
    """The HMI numbers with the chart texts, fresh from the database."""
    data = results_compute(study, fit_models=False)
    texts = {
        c.chart_id: (c.question.text, c.question.answer_key, c.question.mind_question)
        for c in _charts(study)
    }
    for chart in data["charts"]:
        fact, key, mind = texts.get(chart["chart_id"], ("", "", ""))
        chart.update(fact_question=fact, answer_key=key, mind_question=mind)
    return data


def _readme(study: Study, data: dict) -> str:
    funnel = data["funnel"]
    rules = data["rules"]
    sessions = study.sessions.counted()
    first = sessions.order_by("created_at").values_list("created_at", flat=True).first()
    last = sessions.order_by("-created_at").values_list("created_at", flat=True).first()
    reasons = "\n".join(f"  - {r['label']}: {r['n']}" for r in funnel["by_reason"]) or "  - none"
    lines = [
        f"# HMI dataset: {study.title}",
        "",
        f"Study: {study.title} ({study.slug})",
        f"Exported: {timezone.now():%Y-%m-%d %H:%M} UTC",
        f"Sessions from {first:%Y-%m-%d} to {last:%Y-%m-%d}" if first else "No sessions yet.",
        f"Participants: {funnel['took_part']} took part, {funnel['excluded']} excluded, "
        f"N = {funnel['included']} included.",
        "Excluded by reason:",
        reasons,
        "",
        "## Exclusion rules",
        f"- attention-check failures allowed: {rules['max_attention_failures']}",
        f"- minimum median time per chart: {rules['min_seconds_per_trial']:g} s (0 = off)",
        f"- minimum time on any trial: {rules.get('min_trial_ms', 0)} ms (0 = off)",
        "- completed sessions that left trials unanswered excluded: "
        f"{'yes' if rules['exclude_incomplete'] else 'no'}",
        "- timed-out, withdrawn, abandoned, pilot and preview sessions are never included",
        "",
        "## Files",
        "- chart_images/, FACT_questions/, FACT_answer_keys.csv, chart_manipulations.csv:",
        "  the charts in the CHARTOM benchmark layout (imports into Chartroom again)",
        "- MIND_questions/<chart id>.txt: the MIND question (prediction prompt) per chart",
        "- HMI.csv: " + ", ".join(HMI_COLUMNS),
        "",
        "## Definitions",
        *[f"- {k}: {v}" for k, v in DEFINITIONS.items()],
    ]
    if data["messages"]:
        lines += ["", "## Notes", *[f"- {m}" for m in data["messages"]]]
    return "\n".join(lines) + "\n"


def hmi_zip_write(study: Study, out) -> dict:
    """Write the HMI dataset zip to ``out`` (a path or binary file). Returns the data."""
    data = hmi_dataset(study)
    records = [_record(chart) for chart in _charts(study)]
    if not records:
        raise ValidationError("This study has no chart pairs, so there is no dataset to export.")
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        write_benchmark(records, zf)
        buffer = io.StringIO()
        writer = csv_writer(buffer)
        writer.writerow(HMI_COLUMNS)
        writer.writerows(hmi_rows(data))
        zf.writestr("HMI.csv", buffer.getvalue().encode("utf-8"))
        for chart in data["charts"]:
            zf.writestr(f"MIND_questions/{chart['chart_id']}.txt", chart["mind_question"])
        zf.writestr("README.md", _readme(study, data))
    return data


def hmi_json(study: Study) -> dict:
    data = hmi_dataset(study)
    return {
        "study": {"title": study.title, "slug": study.slug},
        "exported_at": timezone.now().isoformat(),
        "funnel": data["funnel"],
        "exclusion_rules": data["rules"],
        "definitions": DEFINITIONS,
        "messages": data["messages"],
        "charts": [
            {
                k: c.get(k)
                for k in (
                    "chart_id",
                    "group",
                    "question",
                    "version",
                    "chart_type",
                    "manipulation",
                    "answer_type",
                    "fact_question",
                    "answer_key",
                    "mind_question",
                    "hmi",
                    "n",
                    "n_wrong",
                    "n_unanswered",
                    "ci_low",
                    "ci_high",
                    "note",
                )
            }  # fmt: skip
            for c in data["charts"]
        ],
        "groups": data["groups"],
    }


def hmi_json_bytes(study: Study) -> bytes:
    return json.dumps(hmi_json(study), indent=2, ensure_ascii=False).encode("utf-8")
