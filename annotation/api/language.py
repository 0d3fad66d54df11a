"""The annotator's API answers in the language of the project it is about, so the refusals
the labelling page shows (a lease that ran out, a round already answered) read like the page."""

from django.utils import translation

from annotation.languages import project_language


class ProjectLanguageMixin:
    """For API views whose URL names a project (``slug``) or an assignment (``pk``)."""

    def dispatch(self, request, *args, **kwargs):
        language = project_language(
            slug=kwargs.get("slug"),
            assignment_id=None if "slug" in kwargs else kwargs.get("pk"),
        )
        if not language:
            return super().dispatch(request, *args, **kwargs)
        with translation.override(language):
            return super().dispatch(request, *args, **kwargs)
