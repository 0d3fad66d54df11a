"""Reads for annotation pages and the API."""

from annotation.selectors.progress import (
    annotator_rows,
    item_page,
    open_leases,
    project_overview,
    researcher_item,
)
from annotation.selectors.work import (
    annotator_assignment,
    annotator_progress,
    member_by_username,
    work_categories,
)

__all__ = [
    "member_by_username",
    "annotator_assignment",
    "annotator_progress",
    "annotator_rows",
    "item_page",
    "open_leases",
    "project_overview",
    "researcher_item",
    "work_categories",
]
