"""Attention check images stored under ``attention/`` move beside the charts (migration 0019),
so an old check's image address no longer tells a participant's client that it is a check."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps as django_apps
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import connection

from studies.models import AttentionCheck
from studies.tests.factories import make_study

migration = importlib.import_module("studies.migrations.0019_attention_images_beside_charts")

pytestmark = pytest.mark.django_db


class _Editor:
    connection = connection


def _check_with_old_image(study, name: str, data: bytes) -> AttentionCheck:
    stored = default_storage.save(name, ContentFile(data))
    check = AttentionCheck.objects.filter(study=study).first()
    AttentionCheck.objects.filter(pk=check.pk).update(image=stored)
    return check


def test_old_images_move_to_charts_and_the_old_file_goes_after_commit(
    researcher, django_capture_on_commit_callbacks
):
    study = make_study(researcher, pairs=1)
    check = _check_with_old_image(study, "attention/abc123.png", b"old-bytes")
    other = AttentionCheck.objects.filter(study=study).exclude(pk=check.pk).first()
    AttentionCheck.objects.filter(pk=other.pk).update(image="attention/abc123.png")

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        migration.move_images_beside_charts(django_apps, _Editor())
    check.refresh_from_db()
    other.refresh_from_db()
    assert check.image.name == "charts/abc123.png"
    assert other.image.name == "charts/abc123.png"
    assert default_storage.open("charts/abc123.png").read() == b"old-bytes"
    # Until the transaction commits, the old file stays (a rollback must find it).
    assert default_storage.exists("attention/abc123.png")
    for callback in callbacks:
        callback()
    assert not default_storage.exists("attention/abc123.png")


def test_a_different_chart_file_of_the_same_name_is_not_overwritten(
    researcher, django_capture_on_commit_callbacks
):
    study = make_study(researcher, pairs=1)
    default_storage.save("charts/same.png", ContentFile(b"a chart"))
    check = _check_with_old_image(study, "attention/same.png", b"a check")

    with django_capture_on_commit_callbacks(execute=True):
        migration.move_images_beside_charts(django_apps, _Editor())
    check.refresh_from_db()
    assert check.image.name.startswith("charts/same")
    assert check.image.name != "charts/same.png"
    assert default_storage.open(check.image.name).read() == b"a check"
    assert default_storage.open("charts/same.png").read() == b"a chart"


def test_same_bytes_already_beside_the_charts_are_shared(
    researcher, django_capture_on_commit_callbacks
):
    study = make_study(researcher, pairs=1)
    default_storage.save("charts/dup.png", ContentFile(b"same"))
    check = _check_with_old_image(study, "attention/dup.png", b"same")

    with django_capture_on_commit_callbacks(execute=True):
        migration.move_images_beside_charts(django_apps, _Editor())
    check.refresh_from_db()
    assert check.image.name == "charts/dup.png"
    assert not default_storage.exists("attention/dup.png")


def test_a_missing_file_leaves_the_check_as_it_was(researcher, django_capture_on_commit_callbacks):
    study = make_study(researcher, pairs=1)
    check = AttentionCheck.objects.filter(study=study).first()
    AttentionCheck.objects.filter(pk=check.pk).update(image="attention/gone.png")

    with django_capture_on_commit_callbacks(execute=True):
        migration.move_images_beside_charts(django_apps, _Editor())
    # Read the name only: loading the row would open the missing image for its size.
    assert AttentionCheck.objects.values_list("image", flat=True).get(pk=check.pk) == (
        "attention/gone.png"
    )
