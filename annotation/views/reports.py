"""The researcher's report page: agreement, aggregation, dataset tables, Figure 1, downloads."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_POST

from analysis.aggregation import METHODS
from analysis.captions import DATASET_NAMES, MODEL_NAMES
from annotation.models import Project
from annotation.services.exports import (
    TABLES,
    NoSuchTable,
    default_label_source,
    project_export,
    table_csv,
)
from annotation.services.reports import (
    check_label_source,
    project_tie_rule_set,
    report_latest,
    report_refresh,
    report_request,
)
from core.decorators import researcher_required
from core.models import Job


def _visible(request, slug: str) -> Project:
    return get_object_or_404(Project.objects.visible_to(request.user), slug=slug)


def _asked_source(request) -> str | None:
    """The label source the request names (a 400 for one there is not), else None."""
    return check_label_source(request.GET.get("labels") or request.POST.get("labels") or None)


def _variant(request, project: Project) -> tuple[str, bool]:
    source = _asked_source(request) or default_label_source(project)
    include = (request.GET.get("include") or request.POST.get("include")) == "all"
    return source, include


def _query(labels: str, include: bool) -> str:
    params = {"labels": labels}
    if include:
        params["include"] = "all"
    return urlencode(params)


def _number(value, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _percent(value, digits: int = 1) -> str:
    return "—" if value is None else f"{100 * value:.{digits}f}%"


def _pivot(rows: list[dict]) -> dict:
    """Tables 5 and 6 as in the paper: one row per model, a column group per dataset."""
    datasets = list(dict.fromkeys(r["dataset"] for r in rows))
    models = list(dict.fromkeys(r["model"] for r in rows))
    cells = {(r["model"], r["dataset"]): r for r in rows}
    body = []
    for model in models:
        line = []
        for dataset in datasets:
            cell = cells.get((model, dataset))
            line.append(
                None
                if cell is None
                else {
                    "factual": cell["factual"],
                    "nonfactual": cell["nonfactual"],
                    "rate": _percent(cell["factual_rate"], 2),
                }
            )
        body.append({"model": MODEL_NAMES.get(model, model), "cells": line})
    return {"datasets": [DATASET_NAMES.get(d, d) for d in datasets], "rows": body}


def _display(data: dict) -> dict:
    """Numbers formatted for the page; the stored report keeps the full values."""
    shown: dict = {"agreement": None, "tables": None}
    names = data.get("annotator_names") or {}
    agreement = data.get("agreement")
    if agreement:
        decisions = [
            {
                **row,
                "kappa": _number(row["fleiss_kappa"]),
                "p": _percent(row["majority_agreement"]),
                "alpha": _number(row["krippendorff_alpha"]),
                "ac1": _number(row["gwet_ac1"]),
                "marked": _percent(row["positive_share"]),
            }
            for row in agreement["decisions"]
        ]
        shares = sorted(
            a["factual_share"] for a in agreement["annotators"] if a["factual_share"] is not None
        )
        median = shares[len(shares) // 2] if shares else None
        annotators = [
            {
                **a,
                "username": names.get(a["annotator"], ""),
                "factual": _percent(a["factual_share"]),
                "decisions": _percent(a["decisions_share"]),
                "nonfactual": _percent(a["nonfactual_share"]),
                "marks": _number(a["marks_per_sentence"], 2),
                # Well below the others' agreement with the majority: worth a look.
                "outlier": (
                    median is not None
                    and a["factual_share"] is not None
                    and len(shares) >= 3
                    and a["factual_share"] < median - 0.1
                ),
            }
            for a in agreement["annotators"]
        ]
        pairs = [
            {**p, "kappa": _number(p["cohen_kappa"]), "name_a": names.get(p["annotator_a"], ""),
             "name_b": names.get(p["annotator_b"], "")}
            for p in agreement["pairwise"][:60]
        ]  # fmt: skip
        shown["agreement"] = {
            "decisions": decisions,
            "annotators": annotators,
            "pairs": pairs,
            "more_pairs": max(0, len(agreement["pairwise"]) - 60),
            "left_out": agreement["left_out"],
            # What kappa and p count (exactly k, or the first k_min under adaptive overlap).
            "basis": agreement.get("basis", ""),
        }
    tables = data.get("tables")
    if tables:
        categories = data.get("categories", [])
        shown["tables"] = {
            "factuality": tables["factuality"],
            "sentences": _pivot(tables["sentence_rates"]),
            "captions": _pivot(tables["caption_rates"]),
            "error_types": [
                {
                    "dataset": DATASET_NAMES.get(row["dataset"], row["dataset"]),
                    "model": MODEL_NAMES.get(row["model"], row["model"]),
                    "sentences": row["sentences"],
                    "rates": [_percent(row.get(c["key"])) for c in categories],
                }
                for row in tables["error_types"]
            ],
        }
    return shown


# The downloads that can carry another aggregation method's labels and posteriors.
METHOD_FORMATS = [
    ("chocolate", "Aggregated dataset (CHOCOLATE JSON)"),
    ("report-json", "This report (JSON)"),
    ("labels-csv", "Every annotator decision (CSV)"),
    ("labels-jsonl", "Every annotator decision (JSON Lines)"),
]


def _aggregation(data: dict) -> dict | None:
    """The aggregation part for the page: one row per annotator, a cell per category."""
    part = data.get("aggregation")
    if not part:
        return None
    names = data.get("annotator_names") or {}
    rows: dict[str, dict] = {}
    for e in part["estimates"]:
        row = rows.setdefault(
            e["annotator"],
            {
                "annotator": e["annotator"],
                "username": names.get(e["annotator"], ""),
                "control": _percent(e["control_score"]),
                "controls": e["controls"],
                "cells": {},
            },
        )
        row["cells"][e["category"]] = (_number(e["sensitivity"], 2), _number(e["specificity"], 2))
    keys = [c["key"] for c in data.get("categories", [])]
    for row in rows.values():
        row["cells"] = [row["cells"].get(key, ("—", "—")) for key in keys]
    return {
        **part,
        "annotators": list(rows.values()),
        "uncertain": [{**u, "p": _number(u["p_positive"])} for u in part["uncertain"]],
    }


@researcher_required
def project_report(request, slug: str):
    project = _visible(request, slug)
    labels, include = _variant(request, project)
    snapshot, job, stale = report_refresh(
        project=project, labels=labels, include_excluded=include, user=request.user
    )
    busy = job is not None and job.state in (Job.State.QUEUED, Job.State.RUNNING)
    data = snapshot.data if snapshot is not None else None
    query = _query(labels, include)
    return render(
        request,
        "annotation/reports/report.html",
        {
            "project": project,
            "labels": labels,
            "include": include,
            "query": query,
            "snapshot": snapshot,
            "data": data,
            "shown": _display(data) if data else None,
            "aggregation": _aggregation(data) if data else None,
            "methods": list(METHODS.items()),
            "method_formats": METHOD_FORMATS,
            "job": job,
            "busy": busy,
            "failed": job is not None and job.state == Job.State.FAILED and stale,
            "stale": stale,
            "tables": list(TABLES),
            "formats": [
                ("dataset-zip", "Dataset to publish (zip with Croissant and card)"),
                ("chocolate", "Aggregated dataset (CHOCOLATE JSON)"),
                ("report-json", "This report (JSON)"),
                ("labels-csv", "Every annotator decision (CSV)"),
                ("labels-jsonl", "Every annotator decision (JSON Lines)"),
            ],
        },
    )


@require_POST
@researcher_required
def report_recompute(request, slug: str):
    project = _visible(request, slug)
    labels, include = _variant(request, project)
    report_request(project=project, labels=labels, include_excluded=include, user=request.user)
    messages.success(request, "The report is being recomputed.")
    return redirect(
        reverse("annotation:project-report", args=[slug]) + "?" + _query(labels, include)
    )


@require_POST
@researcher_required
def report_tie_rule(request, slug: str):
    project = _visible(request, slug)
    labels, include = _variant(request, project)
    try:
        project_tie_rule_set(
            project=project, tie_rule=request.POST.get("tie_rule", ""), actor=request.user
        )
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        messages.success(request, f"Tie rule saved: {project.get_tie_rule_display().lower()}.")
    return redirect(
        reverse("annotation:project-report", args=[slug]) + "?" + _query(labels, include)
    )


@researcher_required
def report_figure(request, slug: str):
    project = _visible(request, slug)
    labels, include = _variant(request, project)
    snapshot = report_latest(project=project, labels=labels, include_excluded=include)
    if snapshot is None or not snapshot.figure_svg:
        raise Http404("No figure yet.")
    response = HttpResponse(snapshot.figure_svg, content_type="image/svg+xml")
    response["Content-Security-Policy"] = "default-src 'none'; style-src 'unsafe-inline'"
    return response


@researcher_required
def report_table(request, slug: str, name: str):
    project = _visible(request, slug)
    labels, include = _variant(request, project)
    snapshot = report_latest(project=project, labels=labels, include_excluded=include)
    if snapshot is None:
        raise Http404("No report yet.")
    try:
        text = table_csv(snapshot.data, name)
    except NoSuchTable as exc:
        raise Http404(str(exc)) from None
    response = HttpResponse(text, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{slug}-{labels}-{name}.csv"'
    return response


@researcher_required
def project_download(request, slug: str, fmt: str):
    project = _visible(request, slug)
    labels, include = _variant(request, project)
    try:
        export = project_export(
            project=project,
            fmt=fmt,
            # Raw labels are the annotators' unless the reference labels are named.
            labels=_asked_source(request) if fmt.startswith("labels-") else labels,
            include_excluded=include,
            base_url=request.build_absolute_uri("/").rstrip("/"),
            method=request.GET.get("method") or None,
        )
    except ValidationError:
        raise Http404("No such export.") from None
    response = StreamingHttpResponse(
        export.byte_chunks(),
        content_type=export.http_content_type,
    )
    response["Content-Disposition"] = f'attachment; filename="{export.filename}"'
    return response
