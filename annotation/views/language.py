"""Annotator pages speak the project's language (annotation/languages.py)."""

from functools import wraps

from annotation.languages import PROJECT_TEXTS, project_language, show_in
from annotation.models import Project
from core.languages import speaking


def in_project_language(view):
    """Run a view whose URL names a project (``slug``) in that project's language.

    The page is rendered inside the view, so its templates, its messages and the
    refusals it shows (also those ServiceErrorMiddleware renders) come out in the
    project's language.
    """

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        language = project_language(slug=kwargs.get("slug"))
        if not language:
            return view(request, *args, **kwargs)
        with speaking(request, language):
            return view(request, *args, **kwargs)

    return wrapped


def shown(project: Project) -> Project:
    """The project with its title, description and guidelines in its language (display only)."""
    return show_in([project], PROJECT_TEXTS, project.language)[0]
