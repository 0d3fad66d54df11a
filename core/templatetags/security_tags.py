from datetime import timedelta

from django import template

register = template.Library()


@register.filter
def cooloff_minutes(value: timedelta) -> str:
    """A lockout's length in words people read at a glance ("15 minutes", "1 hour")."""
    minutes = max(1, round(value.total_seconds() / 60))
    if minutes % 60 == 0:
        hours = minutes // 60
        return f"{hours} hour{'s' if hours != 1 else ''}"
    return f"{minutes} minute{'s' if minutes != 1 else ''}"
