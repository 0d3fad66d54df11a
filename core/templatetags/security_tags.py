from datetime import timedelta

from django import template
from django.utils.translation import ngettext

register = template.Library()


@register.filter
def cooloff_minutes(value: timedelta) -> str:
    """A lockout's length in words people read at a glance ("15 minutes", "1 hour"), in the
    active language."""
    minutes = max(1, round(value.total_seconds() / 60))
    if minutes % 60 == 0:
        hours = minutes // 60
        return ngettext("%(count)d hour", "%(count)d hours", hours) % {"count": hours}
    return ngettext("%(count)d minute", "%(count)d minutes", minutes) % {"count": minutes}
