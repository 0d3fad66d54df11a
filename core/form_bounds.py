"""A model field's bounds as its form field's and the browser's, for every settings form."""

from __future__ import annotations

from django import forms
from django.core.validators import MaxValueValidator, MinValueValidator

# (validator, form field attribute, widget attribute, which of two limits is tighter)
_BOUNDS = (
    (MinValueValidator, "min_value", "min", max),
    (MaxValueValidator, "max_value", "max", min),
)


def bounds_from_model(field, model_field) -> None:
    """The model's bounds (a time limit at least 1 minute) as the form's and the browser's.

    A PositiveIntegerField's form field allows 0 and tells the browser min=0 whatever the
    model's validators say, so 0 passed the page and was refused by the service with
    another message than -5 got. The model's validators are the rule (the API has them
    too); this makes the form say the same, once.
    """
    if not isinstance(field, forms.IntegerField | forms.FloatField | forms.DecimalField):
        return
    for kind, attribute, html, tighter in _BOUNDS:
        limits = [v.limit_value for v in model_field.validators if isinstance(v, kind)]
        limits = [limit() if callable(limit) else limit for limit in limits]
        if getattr(field, attribute) is not None:
            limits.append(getattr(field, attribute))
        if not limits:
            continue
        limit = tighter(limits)
        setattr(field, attribute, limit)
        field.widget.attrs[html] = limit
        kept = [v for v in field.validators if not isinstance(v, kind)]
        field.validators = [*kept, kind(limit)]


def model_bounds_for(form, model, names) -> None:
    """:func:`bounds_from_model` for each of ``names`` the form has."""
    for name in names:
        if name in form.fields:
            bounds_from_model(form.fields[name], model._meta.get_field(name))
