"""Exporting a study's prompts for a model runner: each chart's image and a JSONL manifest."""

from __future__ import annotations

import json
import zipfile
from pathlib import PurePosixPath

from analysis.tables import natural_key
from studies.models import Chart, Study

MANIFEST = "prompts.jsonl"
README = """Prompts for the charts of study "{title}".

{manifest} has one JSON object a line: chart_id, image (the path in this zip),
fact_prompt (the FACT question as participants read it) and mind_prompt (the
MIND question with the FACT question inserted). Send each prompt with its image
and write the answers as CSV or JSON Lines with the columns
model, chart_id, fact_answer, mind_prediction, mind_justification
to import them on the study's Models page or with
python manage.py import_model_answers {slug} FILE
"""


def study_prompt_charts(study: Study) -> list[Chart]:
    charts = Chart.objects.filter(question__study_pairs__study=study).select_related("question")
    return sorted(charts, key=lambda c: natural_key(c.chart_id))


def prompt_rows(study: Study) -> list[dict]:
    rows = []
    for chart in study_prompt_charts(study):
        suffix = PurePosixPath(chart.image.name).suffix or ".png"
        rows.append(
            {
                "chart_id": chart.chart_id,
                "image": f"images/{chart.chart_id}{suffix}",
                "fact_prompt": chart.question.text,
                "mind_prompt": chart.question.mind_question,
                "_chart": chart,
            }
        )
    return rows


def prompts_export_write(*, study: Study, out) -> int:
    """Write the prompts zip to the binary file ``out``; returns the number of charts."""
    rows = prompt_rows(study)
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        lines = []
        for row in rows:
            chart = row.pop("_chart")
            with chart.image.open("rb") as image:
                archive.writestr(row["image"], image.read())
            lines.append(json.dumps(row, ensure_ascii=False))
        archive.writestr(MANIFEST, "".join(line + "\n" for line in lines))
        archive.writestr(
            "README.txt", README.format(title=study.title, slug=study.slug, manifest=MANIFEST)
        )
    return len(rows)


def prompts_filename(study: Study) -> str:
    return f"{study.slug}-prompts.zip"
