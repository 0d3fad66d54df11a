from django.urls import reverse
from django.utils.translation import gettext as _


def navigation(request):
    """The header links for whoever is signed in."""
    user = getattr(request, "user", None)
    links = []
    if user is not None and user.is_authenticated:
        if user.is_researcher:
            links = [
                ("Home", reverse("researcher-home")),
                ("Chart library", reverse("studies:library")),
                ("API tokens", reverse("tokens")),
                ("API docs", reverse("api-docs")),
            ]
        elif user.is_annotator:
            links = [(_("My work"), reverse("annotation:home"))]
    return {"nav_links": links}
