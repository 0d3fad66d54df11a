from django import template

from core.tabs import tabs_context

register = template.Library()

STUDY_PAGES = [
    ("detail", "Overview", "studies:detail"),
    ("edit", "Settings & texts", "studies:edit"),
    ("planner", "Planner", "studies:planner"),
    ("pairs", "Pairs", "studies:pairs"),
    ("checks", "Attention checks", "studies:checks"),
    ("languages", "Languages", "studies:languages"),
    ("results", "Results", "studies:results"),
    ("models", "Models", "studies:models"),
]


@register.inclusion_tag("_tabs.html")
def study_tabs(study, current: str):
    """{% study_tabs study "results" %}: the study's pages, the current one marked."""
    return tabs_context(label="Study pages", current=current, pages=STUDY_PAGES, slug=study.slug)
