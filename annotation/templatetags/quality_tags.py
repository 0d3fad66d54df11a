"""Quality notices on researcher pages that belong to other views (the project page, its nav)."""

from django import template

from annotation.selectors.quality import paused_annotators

register = template.Library()


@register.inclusion_tag("annotation/quality/_paused_notice.html")
def paused_notice(project):
    return {"project": project, "paused": paused_annotators(project)}
