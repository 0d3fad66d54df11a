"""The annotator's API answers in the language of the project it is about, so the refusals
the labelling page shows (a lease that ran out, a round already answered) read like the page."""

from django.utils import translation

from annotation.languages import project_language
from annotation.models import Project


class ProjectLanguageMixin:
    """For API views whose URL names a project (``slug``) or an assignment (``pk``).

    A URL with a slug reads the project's row itself and keeps it as ``self.project``
    (None when there is no such project) for the view, so that the language costs
    the view no statement of its own: the next-item request is made for every item.
    """

    project: Project | None = None

    def dispatch(self, request, *args, **kwargs):
        slug = kwargs.get("slug")
        if slug is not None:
            self.project = Project.objects.filter(slug=slug).first()
            language = self.project.language if self.project is not None else None
        else:
            language = project_language(assignment_id=kwargs.get("pk"))
        if not language:
            return super().dispatch(request, *args, **kwargs)
        with translation.override(language):
            return super().dispatch(request, *args, **kwargs)
