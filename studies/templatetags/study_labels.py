"""Human labels for the stored keys the study pages show (answer types)."""

from django import template

from studies.answer_types import REGISTRY

register = template.Library()


@register.filter
def answer_type_label(value) -> str:
    """ "Multiple choice" for ``multiple_choice``; a list ("a, b") label by label."""
    if not value:
        return "—"
    keys = [part.strip() for part in str(value).split(",")]
    return ", ".join(REGISTRY[k].label if k in REGISTRY else k for k in keys)
