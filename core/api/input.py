"""Strict request input: a key the endpoint does not take is a 400 that names it.

DRF drops keys a serializer has no field for, and keys of read-only fields, without a
word; a client with a typo (``titel``) or one that sends a value only another endpoint
can change (a study's ``status``) would believe the change was made. The serializers of
request bodies and query strings derive from ``InputSerializer`` or
``InputModelSerializer`` so that every such key is refused, once, here.

A read-only field sent back with the value it already has is let through, so that a
client may PUT or PATCH what it read (a round trip changes nothing it could not change).
"""

from __future__ import annotations

from collections.abc import Mapping

from rest_framework import serializers
from rest_framework.settings import api_settings

# Keys a request may carry that are not input of the endpoint: DRF's ?format= and the CSRF
# token of the browsable API's forms.
NOT_INPUT = {"csrfmiddlewaretoken", api_settings.URL_FORMAT_OVERRIDE}


class RefusedKeys(serializers.ValidationError):
    """A ValidationError whose `summary` the API's handler uses as the answer's detail."""

    def __init__(self, errors: dict, summary: str):
        super().__init__(errors)
        self.summary = summary


def _representation(field, instance):
    try:
        return field.to_representation(field.get_attribute(instance))
    except Exception:  # noqa: BLE001 - an unreadable value is simply not "the same"
        return object()


def _name_the_choices(field) -> None:
    """A wrong choice is answered with the choices (DRF's message names none)."""
    if not isinstance(field, serializers.ChoiceField):
        return
    default = serializers.ChoiceField.default_error_messages["invalid_choice"]
    if str(field.error_messages.get("invalid_choice")) != str(default):
        return
    choices = [str(key) for key in field.choices][:40]
    field.error_messages = {
        **field.error_messages,
        "invalid_choice": f"“{{input}}” is not a valid choice: choose one of {', '.join(choices)}.",
    }


class StrictInputMixin:
    # Refuses unknown keys and changes to read-only fields (see the module docstring). No
    # docstrings on these bases: the API docs would show one as the description of every
    # serializer built on them.

    # Field name -> what to do instead, for keys a client is likely to send here by mistake
    # (a read-only field with its own endpoint, a parameter of another endpoint).
    refused_keys: dict[str, str] = {}

    def get_fields(self):
        fields = super().get_fields()
        for field in fields.values():
            _name_the_choices(field)
        return fields

    def is_valid(self, *, raise_exception=False):
        # DRF rebuilds the error from the field messages on its way out; keep the summary.
        try:
            return super().is_valid(raise_exception=raise_exception)
        except serializers.ValidationError as exc:
            summary = getattr(self, "_refusal_summary", None)
            if summary is None:
                raise
            raise RefusedKeys(exc.detail, summary) from None

    def to_internal_value(self, data):
        if isinstance(data, Mapping):
            self.refuse_keys(data)
        return super().to_internal_value(data)

    def _takes(self) -> list[str]:
        return [name for name, field in self.fields.items() if not field.read_only]

    def _unchanged(self, field, value) -> bool:
        instance = getattr(self, "instance", None)
        if instance is None or isinstance(instance, list | tuple):
            return False
        current = _representation(field, instance)
        return current == value or (value is not None and str(current) == str(value))

    def refuse_keys(self, data: Mapping) -> None:
        fields = self.fields
        unknown, read_only, errors = [], [], {}
        for key in data:
            if key in NOT_INPUT:
                continue
            field = fields.get(key)
            if field is None:
                unknown.append(key)
            elif field.read_only and not self._unchanged(field, data[key]):
                read_only.append(key)
            else:
                continue
            errors[key] = [self.refused_keys.get(key) or self._default_reason(field)]
        if not errors:
            return
        parts = []
        if unknown:
            parts.append("Unknown fields: " + ", ".join(unknown) + ".")
        if read_only:
            parts.append("Read-only here: " + ", ".join(read_only) + ".")
        parts.extend(self.refused_keys[key] for key in errors if key in self.refused_keys)
        takes = self._takes()
        parts.append(
            "This request takes: " + ", ".join(takes) + "." if takes else "It takes no fields."
        )
        self._refusal_summary = " ".join(parts)
        raise RefusedKeys(errors, self._refusal_summary)

    @staticmethod
    def _default_reason(field) -> str:
        if field is None:
            return "Unknown field."
        return "Read-only: it cannot be changed with this request."


class InputSerializer(StrictInputMixin, serializers.Serializer):
    pass  # the base of serializers that read a request body or query string


class InputModelSerializer(StrictInputMixin, serializers.ModelSerializer):
    pass  # the base of model serializers that also read a request body
