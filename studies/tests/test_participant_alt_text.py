"""An attention check's image is described as the study's charts are, in the page and in the
JSON, so reading alt text never tells a client which trial is a check."""

import importlib
import re

import pytest
from django.apps import apps
from django.test import Client
from django.urls import reverse

from studies.models import AnswerType, AttentionCheck, Study
from studies.selectors.study import trial_current
from studies.services import study as setup
from studies.tests.factories import make_chart_set, make_study, png_bytes
from studies.tests.test_participant_api import CHART_ALT
from studies.tests.test_participant_pages import form_for, session_url, start

pytestmark = pytest.mark.django_db

IMG_ALT = re.compile(r'<figure class="chart"[^>]*>\s*<img src="[^"]+" alt="([^"]*)"')


def _sanity(study, researcher, **extra):
    return setup.attention_check_create(
        study=study,
        actor=researcher,
        kind="sanity",
        prompt="How many apples does the bar show?",
        answer_type=AnswerType.FREE_TEXT,
        answer_key="10",
        image=png_bytes(),
        **extra,
    )


def test_the_trial_pages_describe_check_images_as_charts(researcher):
    study = make_study(researcher, pairs=3, checks=(), status=Study.Status.DRAFT)
    _sanity(study, researcher)
    Study.objects.filter(pk=study.pk).update(status=Study.Status.LIVE)
    client = Client()
    session = start(client, study)
    client.post(reverse("participate:begin", args=[session.token]))
    alts = {}
    while session.current_position < session.trial_count:
        trial = trial_current(session)
        page = client.get(session_url(session)).content.decode()
        alts[trial.kind] = IMG_ALT.search(page)[1]
        client.post(reverse("participate:answer", args=[session.token]), form_for(trial))
        session.refresh_from_db()
    assert set(alts) == {"chart", "attention"}
    assert all(CHART_ALT.match(alt) for alt in alts.values()), alts
    assert alts["attention"] == "Bar chart"


def test_a_check_image_without_alt_text_takes_the_study_charts_type(researcher):
    chart_set = make_chart_set(researcher, pairs=3)
    chart_set.groups.update(chart_type="line")
    study = make_study(researcher, chart_set=chart_set, checks=(), status=Study.Status.DRAFT)
    assert _sanity(study, researcher).alt_text == "Line chart"
    given = _sanity(study, researcher, alt_text="  Bar chart:   Apples ")
    assert given.alt_text == "Bar chart: Apples"
    instructed = setup.attention_check_create(
        study=study,
        actor=researcher,
        kind="instructed",
        prompt="Select 'Agree'.",
        answer_type=AnswerType.MULTIPLE_CHOICE,
        options=["Disagree", "Agree"],
        answer_key="Agree",
    )
    assert instructed.alt_text == ""  # no image, nothing to describe


def test_checks_made_before_alt_text_are_described_by_the_migration(researcher):
    study = make_study(researcher, pairs=3, checks=(None, None))
    AttentionCheck.objects.filter(study=study).update(alt_text="")
    migration = importlib.import_module("studies.migrations.0020_attention_check_alt_text")
    migration.describe_check_images(apps, None)
    alts = dict(AttentionCheck.objects.filter(study=study).values_list("kind", "alt_text"))
    assert alts == {"instructed": "", "sanity": "Bar chart"}
