"""What the caption dataset zip holds, described for core.datasets: its tables and
columns, the counts and dates, and how the labels were made (procedure, qualification,
control items, annotators, pay)."""

from __future__ import annotations

import json

from analysis.aggregation import METHODS
from annotation.models import Project
from annotation.selectors.agreement import CategoryInfo
from annotation.selectors.dataset import dataset_collection_facts
from core.datasets import Config, DatasetDescription, Field, data_file, data_version

S, INT, B = "string", "integer", "boolean"
RAW_FIELDS = (
    Field("item", S, "The caption's id."),
    Field("sentence", INT, "0-based position of the sentence in the caption."),
    Field("category", S, "The error category decided on."),
    Field("value", B, "1 if the annotator marked the sentence with the category."),
    Field("annotator", S, "The annotator's pseudonymous project id (A01, A02 ...)."),
    Field("annotator_state", S, "The annotator's qualification state in the project."),
    Field("label_set", INT, "The label set (one annotator's labels of one caption)."),
    Field("counted", B, "1 if the label set counts towards the aggregated labels."),
    Field("excluded_because", S, "Why a label set does not count; empty if it does."),
    Field("active_seconds", "number", "Time the annotator spent on the caption.", unit="s"),
    Field("leased_at", S, "When the caption was given to the annotator (ISO 8601, UTC)."),
    Field("submitted_at", S, "When the labels were submitted (ISO 8601, UTC)."),
)
SOURCES = {
    "annotators": "the annotators' majority vote per sentence and category",
    "reference": "the imported reference labels",
}


def sentence_columns(categories: list[CategoryInfo]) -> tuple[Field, ...]:
    return (
        Field("caption_id", S, "The caption's id (CHOCOLATE `_id`)."),
        Field("sentence_index", INT, "0-based position of the sentence in its caption."),
        Field("sentence", S, "The sentence, exactly as written by the captioning model."),
        Field("model", S, "The model that wrote the caption."),
        Field("dataset", S, "The chart corpus the chart comes from."),
        Field("split", S, "The caption's split (LVLM, LLM, FT ...)."),
        Field("image_path", S, "The chart: a URL, or the file name of a stored chart."),
        Field("labels", S, "The error categories of the sentence, space-separated."),
        Field("factual", B, "1 if the sentence has no error that makes it non-factual."),
        *(
            Field(c.key, B, f"1 if the sentence has a {c.name} error.")
            for c in categories
        ),
    )  # fmt: skip


def _label_source(project: Project, labels: str) -> str:
    # The annotators' labels follow the project's aggregation method, as the export does.
    if labels != "annotators" or project.aggregation_method == "majority":
        return SOURCES[labels]
    return (
        f"the annotators' labels aggregated per sentence and category with "
        f"{METHODS[project.aggregation_method]} (an error where its posterior is above 0.5)"
    )


def _procedure(project: Project, labels: str, categories, facts: dict) -> str:
    by_vote = labels == "annotators" and project.aggregation_method == "majority"
    names = ", ".join(c.name for c in categories)
    tie = "no error" if project.tie_rule == "negative" else "an error"
    return (
        f"Annotators read each machine-written chart caption beside its chart, following the "
        f"project's guidelines, and marked each sentence with any of {len(categories)} error "
        f"categories ({names}). Each caption is labelled by {project.annotators_per_item} "
        f"different annotators. The labels in sentences.csv and chocolate.json are "
        f"{_label_source(project, labels)}" + (f"; a tie counts as {tie}." if by_vote else ".")
    )


def _quality(facts: dict) -> str:
    rounds = facts["rounds"]
    policy = facts["policy"]
    text = (
        f"{len(rounds)} qualification rounds: "
        + "; ".join(
            f"{r['title']} ({r['gold']} gold captions, {r['rule']} at least {r['pass_mark']:g})"
            for r in rounds
        )
        + "."
        if rounds
        else "No qualification rounds."
    )
    text += f" {facts['control_items']} hidden control items (gold captions outside the rounds)"
    if policy is not None:
        text += (
            f", given at a rate of {policy.control_rate:g}; an annotator whose running control "
            f"score ({policy.get_control_rule_display()}) falls below "
            f"{policy.pause_threshold:g} is paused"
        )
    return text + (
        ". Labels given to control items are in the raw labels, marked excluded_because = "
        "control, and left out of the aggregated labels and the agreement."
    )


def _rai(project: Project, labels: str, categories, facts: dict) -> dict[str, str]:
    return {
        "dataCollection": "Captions imported into a Chartroom annotation project and labelled "
        "by its annotators. " + _quality(facts),
        "dataCollectionType": "Crowdsourced annotation",
        "dataAnnotationProtocol": _procedure(project, labels, categories, facts),
        "dataAnnotationPlatform": "Chartroom",
        "annotationsPerItem": f"{project.annotators_per_item} annotators per caption",
        "annotatorDemographics": (
            f"{facts['members']} annotators joined, {facts['qualified']} qualified, "
            f"{facts['annotators']} gave the {facts['label_sets']} label sets that count. No "
            f"demographics are collected. Pay: {project.pay_per_item} {project.currency} per "
            f"caption, aiming at {project.target_hourly_rate} {project.currency} per hour."
        ),
        "personalSensitiveInformation": (
            "Annotators appear only under pseudonymous project ids (A01, A02 ...), never by "
            "account name; no personal data about them is in the dataset."
        ),
    }


def _sections(project: Project, categories) -> tuple[tuple[str, str], ...]:
    rows = "\n".join(
        f"| `{c.key}` | {c.name} | {'yes' if c.factual else 'no'} |" for c in categories
    )
    return (
        ("Error categories", "| key | name | makes a sentence non-factual |\n|---|---|---|\n" + rows),
        ("Guidelines", project.guidelines),
    )  # fmt: skip


def caption_description(
    *,
    project: Project,
    labels: str,
    include_excluded: bool,
    contents: dict[str, bytes],
    categories: list[CategoryInfo],
    sentences: int,
) -> DatasetDescription:
    facts = dataset_collection_facts(project, labels=labels, include_excluded=include_excluded)
    captions = len(json.loads(contents["chocolate.json"]))
    raw_rows = contents["labels.jsonl"].count(b"\n")
    files = (
        data_file(name="sentences", path="sentences.csv", content=contents["sentences.csv"],
                  media_type="text/csv", description="One row per sentence with its labels.",
                  fields=sentence_columns(categories), rows=sentences),
        data_file(name="sentences_jsonl", path="sentences.jsonl",
                  content=contents["sentences.jsonl"], media_type="application/jsonlines",
                  rows=sentences, description="The sentences as JSON Lines, labels as a list."),
        data_file(name="captions", path="chocolate.json", content=contents["chocolate.json"],
                  media_type="application/json", rows=captions,
                  description="One record per caption in the CHOCOLATE format: sentences, "
                  "labels per sentence, model, dataset, image_path, _id."),
        data_file(name="raw_labels", path="labels.csv", content=contents["labels.csv"],
                  media_type="text/csv", fields=RAW_FIELDS, rows=raw_rows,
                  description="Every annotator's decision, one row per sentence and category."),
        data_file(name="raw_labels_jsonl", path="labels.jsonl", content=contents["labels.jsonl"],
                  media_type="application/jsonlines", rows=raw_rows,
                  description="The raw labels as JSON Lines."),
    )  # fmt: skip
    first, last = facts["first"], facts["last"]
    return DatasetDescription(
        name=f"{project.slug}-captions",
        title=f"Caption errors: {project.title}",
        description=project.description
        or f"Sentence-level error labels of {captions} machine-written chart captions.",
        license=project.license,
        citation=project.citation,
        version=data_version(files),
        date_created=first.date() if first else None,
        date_modified=last.date() if last else None,
        creators=(project.owner.display_name,),
        keywords=("charts", "chart captioning", "factual errors"),
        files=files,
        configs=(
            Config("sentences", ("sentences.jsonl",), "one row per sentence with its labels", True),
            Config("captions", ("chocolate.json",), "one row per caption (CHOCOLATE format)"),
            Config("raw_labels", ("labels.jsonl",), "every annotator's decisions"),
        ),
        facts={
            "captions": captions,
            "sentences": sentences,
            "annotators": facts["annotators"],
            "label_sets": facts["label_sets"],
            "qualification_rounds": len(facts["rounds"]),
            "control_items": facts["control_items"],
        },
        rai=_rai(project, labels, categories, facts),
        task_categories=("text-classification",),
        card_sections=_sections(project, categories),
    )
