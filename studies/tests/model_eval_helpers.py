"""Shared set-up for the model evaluation tests: answer files for the factory study's charts."""

import io
import json

# make_study(pairs=3): G1_Q1 multiple choice (key "2019"), G1_Q2 free text (key 1.2),
# G1_Q3 ranking (Alpha, Beta, Gamma); each question has charts _1 and _2.
RIGHT = {"G1_Q1": "2019", "G1_Q2": "1.2", "G1_Q3": "Alpha, Beta, Gamma"}
CHART_IDS = [f"G1_Q{q}_{v}" for q in (1, 2, 3) for v in (1, 2)]
HEADER = "model,chart_id,fact_answer,mind_prediction,mind_justification\n"


def row(model, chart_id, fact=None, mind="0.4 because the axis is truncated", why=None):
    fact = RIGHT.get(chart_id[:5], "1") if fact is None else fact
    return {
        "model": model,
        "chart_id": chart_id,
        "fact_answer": fact,
        "mind_prediction": mind,
        "mind_justification": why or "The y axis does not start at zero.",
    }


def jsonl(rows) -> bytes:
    return "\n".join(json.dumps(r) for r in rows).encode()


def upload(rows, name="answers.jsonl"):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile(name, jsonl(rows), content_type="application/octet-stream")


def full_rows(model="m1"):
    return [row(model, c) for c in CHART_IDS]


def as_file(rows) -> io.BytesIO:
    return io.BytesIO(jsonl(rows))
