from django import template

from core.tabs import tabs_context

register = template.Library()

PROJECT_PAGES = [
    ("progress", "Progress", "annotation:project-detail"),
    ("items", "Items", "annotation:project-items"),
    ("import", "Import captions", "annotation:project-import"),
    ("settings", "Settings and categories", "annotation:project-settings"),
    ("quality", "Quality", "annotation:quality"),
    ("report", "Report and exports", "annotation:project-report"),
]


@register.inclusion_tag("_tabs.html")
def project_tabs(project, current: str):
    """{% project_tabs project "items" %}: the project's pages, the current one marked."""
    return tabs_context(
        label="Project pages", current=current, pages=PROJECT_PAGES, slug=project.slug
    )
