"""Writes for annotation projects: settings, imports, the work queue."""

from annotation.services.imports import ImportRejected, ImportResult, captions_import
from annotation.services.projects import (
    InviteError,
    annotator_sign_up,
    category_create,
    category_delete,
    category_update,
    project_create,
    project_for_invite,
    project_join,
    project_update,
)
from annotation.services.queue import QueueError, assignment_next, leases_expire
from annotation.services.queue_flow import (
    Submitted,
    assignment_submit_next,
    assignment_submit_repeat,
)
from annotation.services.queue_moves import assignment_reassign, assignment_release
from annotation.services.queue_work import (
    assignment_draft_save,
    assignment_skip,
    assignment_submit,
)

__all__ = [
    "ImportRejected",
    "ImportResult",
    "InviteError",
    "QueueError",
    "Submitted",
    "annotator_sign_up",
    "assignment_draft_save",
    "assignment_next",
    "assignment_reassign",
    "assignment_release",
    "assignment_skip",
    "assignment_submit",
    "assignment_submit_next",
    "assignment_submit_repeat",
    "captions_import",
    "category_create",
    "category_delete",
    "category_update",
    "leases_expire",
    "project_create",
    "project_for_invite",
    "project_join",
    "project_update",
]
