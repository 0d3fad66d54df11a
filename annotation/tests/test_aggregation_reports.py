"""The report's aggregation part and the exports' method parameter."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest

from analysis.aggregation import aggregate_binary
from annotation.models import Qualification
from annotation.selectors.agreement import annotator_pseudonyms, report_fingerprint
from annotation.services.exports import LABEL_COLUMNS, project_export
from annotation.services.reports import aggregated_labels, report_compute, report_store
from annotation.tests.factories import submit

pytestmark = pytest.mark.django_db
SPAM = "value_error"


@pytest.fixture
def labelled(project, make_items, members):
    """Four careful annotators and one who marks SPAM on every sentence; 3 per item.

    Sentence 0 of every third item truly has SPAM; the careful ones see it.
    """
    careful, spammer = members(4), members(1)[0]
    items = make_items(project, 12)
    triples = []
    for n, item in enumerate(items):
        truth = n % 3 == 0
        for annotator in (careful[n % 4], careful[(n + 1) % 4], spammer):
            first = [SPAM] if truth or annotator == spammer else []
            second = [SPAM] if annotator == spammer else []
            submit(project, item, annotator, [first, second])
            triples += [(item.pk, 0, annotator.pk, SPAM in first)]
            triples += [(item.pk, 1, annotator.pk, SPAM in second)]
    return {"items": items, "careful": careful, "spammer": spammer, "triples": triples}


def _use(project, method):
    project.aggregation_method = method
    project.save(update_fields=["aggregation_method"])


def test_report_labels_follow_the_projects_method(project, labelled):
    _use(project, "dawid_skene")
    tasks = [f"{item}-{sentence}" for item, sentence, _, _ in labelled["triples"]]
    workers = [w for _, _, w, _ in labelled["triples"]]
    marks = [int(v) for *_, v in labelled["triples"]]
    expected = aggregate_binary("dawid_skene", tasks, workers, marks)
    by_task = dict(zip(expected.tasks.tolist(), expected.labels.tolist(), strict=True))
    labels = aggregated_labels(project)
    for item in labelled["items"]:
        for sentence in (0, 1):
            assert (SPAM in labels[item.pk][sentence]) == bool(by_task[f"{item.pk}-{sentence}"])
    # Majority vote marks every sentence 0 here (careful 2 of 3 say yes on true ones only),
    # and the report's tables use the method's labels.
    data = report_compute(project=project).data
    assert data["aggregation"]["method"] == "dawid_skene"
    nonfactual = {row["split"]: row for row in data["tables"]["factuality"]}["all"]
    assert nonfactual["nonfactual_sentences"] == sum(
        SPAM in s for item in labels.values() for s in item
    )


def test_report_shows_estimates_beside_control_scores(project, labelled):
    _use(project, "mace")
    careful = labelled["careful"][0]
    Qualification.objects.update_or_create(
        project=project,
        annotator=careful,
        defaults={"controls_done": 4, "control_score_sum": 3.0},
    )
    part = report_compute(project=project).data["aggregation"]
    assert part["method"] == "mace" and part["estimated"] is True
    pseudonyms = annotator_pseudonyms(project)
    rows = {(e["annotator"], e["category"]): e for e in part["estimates"]}
    assert len(rows) == 5 * len(project.category_keys())
    careful_row = rows[(pseudonyms[careful.pk], SPAM)]
    assert careful_row["control_score"] == pytest.approx(0.75) and careful_row["controls"] == 4
    spammer_row = rows[(pseudonyms[labelled["spammer"].pk], SPAM)]
    assert spammer_row["specificity"] < careful_row["specificity"]
    assert spammer_row["control_score"] is None and spammer_row["controls"] == 0


def test_least_certain_labels_come_first_with_their_text(project, labelled):
    part = report_compute(project=project).data["aggregation"]
    assert part["method"] == "majority" and part["estimated"] is False
    assert all(e["sensitivity"] is None for e in part["estimates"])
    distances = [abs(u["p_positive"] - 0.5) for u in part["uncertain"]]
    assert distances == sorted(distances) and len(distances) == 25
    first = part["uncertain"][0]
    assert first["item"].startswith("item-") and first["text"] in (
        "Sales rose to 20.4% in 2010.",
        "They fell later.",
    )


def test_changing_the_method_makes_the_report_stale(project, labelled):
    before = report_fingerprint(project, labels="annotators")
    _use(project, "dawid_skene")
    assert report_fingerprint(project, labels="annotators") != before


def _text(export) -> str:
    return "".join(export.chunks)


def test_without_a_method_majority_exports_keep_their_old_shape(project, labelled):
    records = json.loads(_text(project_export(project=project, fmt="chocolate")))
    assert list(records[0]) == ["sentences", "labels", "model", "dataset", "image_path", "_id"]
    header = _text(project_export(project=project, fmt="labels-csv")).splitlines()[0]
    assert header == ",".join(LABEL_COLUMNS)
    line = _text(project_export(project=project, fmt="labels-jsonl")).splitlines()[0]
    assert list(json.loads(line)) == list(LABEL_COLUMNS)
    report = project_export(project=project, fmt="report-json")
    assert report.filename == f"{project.slug}-report-annotators.json"
    assert "aggregation" not in json.loads(_text(report))


def test_a_chosen_method_adds_labels_and_posteriors(project, labelled):
    export = project_export(project=project, fmt="chocolate", method="dawid_skene")
    assert export.filename.endswith("-annotators-dawid_skene.json")
    records = json.loads(_text(export))
    labels = aggregated_labels(project, method="dawid_skene")
    for record in records:
        item = project.items.get(external_id=record["_id"])
        assert record["aggregation"] == "dawid_skene"
        assert record["labels"] == labels[item.pk]
        for marked, posterior in zip(record["labels"], record["posteriors"], strict=True):
            assert set(posterior) == set(project.category_keys())
            assert (SPAM in marked) == (posterior[SPAM] > 0.5)

    rows = list(csv.DictReader(io.StringIO(_text(project_export(
        project=project, fmt="labels-csv", method="mace"
    )))))  # fmt: skip
    assert {row["method"] for row in rows} == {"mace"}
    item = labelled["items"][0]
    mace = aggregated_labels(project, method="mace")[item.pk]
    mine = [r for r in rows if r["item"] == item.external_id and r["category"] == SPAM]
    assert {r["aggregated"] for r in mine if r["sentence"] == "0"} == {str(int(SPAM in mace[0]))}
    assert all(0 <= float(r["p_positive"]) <= 1 for r in mine)

    report = json.loads(_text(project_export(project=project, fmt="report-json", method="mace")))
    assert report["aggregation"]["method"] == "mace"
    # The stored snapshot stays the project's (majority vote).
    stored = json.loads(_text(project_export(project=project, fmt="report-json")))
    assert "aggregation" not in stored


def test_the_projects_method_is_the_exports_default(project, labelled):
    _use(project, "dawid_skene")
    records = json.loads(_text(project_export(project=project, fmt="chocolate")))
    assert {r["aggregation"] for r in records} == {"dawid_skene"}
    line = json.loads(_text(project_export(project=project, fmt="labels-jsonl")).splitlines()[0])
    assert line["method"] == "dawid_skene" and isinstance(line["aggregated"], bool)
    report = json.loads(_text(project_export(project=project, fmt="report-json")))
    assert report["aggregation"]["method"] == "dawid_skene"


def test_the_api_and_page_take_a_method(project, labelled, researcher_api, client, researcher):
    url = f"/api/v1/projects/{project.slug}/exports/chocolate/"
    response = researcher_api.get(url, {"method": "mace"})
    assert response.status_code == 200
    records = json.loads(b"".join(response.streaming_content))
    assert records[0]["aggregation"] == "mace"
    bad = researcher_api.get(url, {"method": "glad"})
    assert bad.status_code == 400 and "method" in bad.json()["errors"]

    client.force_login(researcher)
    computed = report_compute(project=project)
    report_store(project=project, computed=computed, labels="annotators", include_excluded=False)
    page = client.get(f"/annotation/projects/{project.slug}/report/").content.decode()
    assert "method=dawid_skene" in page and "least certain labels" in page
    assert "Sales rose to 20.4% in 2010." in page and "Control score" in page
    download = client.get(
        f"/annotation/projects/{project.slug}/export/labels-csv/", {"method": "dawid_skene"}
    )
    header = b"".join(download.streaming_content).decode().splitlines()[0]
    assert header.endswith("method,aggregated,p_positive")


def test_the_command_takes_a_method(project, labelled, tmp_path):
    from django.core.management import call_command

    target = tmp_path / "out.json"
    call_command(
        "export_annotations", project.slug, "--format", "chocolate", "--method", "mace",
        "--output", str(target),
    )  # fmt: skip
    records = json.loads(target.read_text())
    assert records and all(r["aggregation"] == "mace" for r in records)
    assert np.isfinite([p[SPAM] for r in records for p in r["posteriors"]]).all()
