"""The annotator's API answers in the language of the project it is about, so the refusals
the labelling page shows (a lease that ran out, a round already answered) read like the page."""

from django.utils import translation

from annotation.models import Project
from annotation.services import queue_sql


class ProjectLanguageMixin:
    # Notes in comments, not a docstring: the API docs would show a docstring as the
    # description of every operation of a view that has none of its own.
    #
    # For API views whose URL names a project (`slug`) or an assignment (`pk`).
    # A URL with a slug reads the project's row itself and keeps it as `self.project`
    # (None when there is no such project) for the view, so that the language costs
    # the view no statement of its own: the next-item request is made for every item.
    # Both reads are the queue's hand-written SQL (services/queue_sql.py), as the
    # submit with next is made for every item too.

    project: Project | None = None

    def dispatch(self, request, *args, **kwargs):
        slug = kwargs.get("slug")
        if slug is not None:
            self.project = queue_sql.project_by_slug(slug)
            language = self.project.language if self.project is not None else None
        elif kwargs.get("pk") is not None:
            language = queue_sql.assignment_language(kwargs["pk"])
        else:
            language = None
        if not language:
            return super().dispatch(request, *args, **kwargs)
        with translation.override(language):
            return super().dispatch(request, *args, **kwargs)
