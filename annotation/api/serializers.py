"""What the annotation API's areas share: the labels field and a chart's image address.

Each area's serializers live in <area>_serializers.py beside its views (<area>.py); this module
holds only the pieces more than one area builds on."""

from rest_framework import serializers

from annotation.models import Item

ASSIGNMENT_STATES = "leased, submitted, skipped, expired or released"


def labels_field(**kwargs) -> serializers.ListField:
    """One list of category keys per sentence (a new field each call: DRF binds fields)."""
    kwargs.setdefault(
        "help_text", "One list of category keys per sentence; an empty list means no error."
    )
    return serializers.ListField(
        child=serializers.ListField(child=serializers.CharField(max_length=40), allow_empty=True),
        allow_empty=True,
        **kwargs,
    )


LabelsField = labels_field()


def image_src(item: Item, request) -> str:
    if item.image:
        url = item.image.url
        return request.build_absolute_uri(url) if request is not None else url
    return item.image_url
