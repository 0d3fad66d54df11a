"""A project's agreement and dataset report: computing it, its jobs and its options."""

from annotation.services.reports.aggregate import (
    LABEL_SOURCES,
    aggregated_labels,
    check_label_source,
    labels_from_votes,
    votes_frame,
)
from annotation.services.reports.compute import ComputedReport, labelled_records, report_compute
from annotation.services.reports.jobs import (
    REPORT_JOB,
    report_job_run,
    report_labels_arrived,
    report_last_job,
    report_latest,
    report_refresh,
    report_request,
    report_store,
)
from annotation.services.reports.options import project_tie_rule_set

__all__ = [
    "LABEL_SOURCES",
    "REPORT_JOB",
    "ComputedReport",
    "aggregated_labels",
    "check_label_source",
    "labelled_records",
    "labels_from_votes",
    "project_tie_rule_set",
    "report_compute",
    "report_job_run",
    "report_labels_arrived",
    "report_last_job",
    "report_latest",
    "report_refresh",
    "report_request",
    "report_store",
    "votes_frame",
]
