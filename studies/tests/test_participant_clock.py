"""The trial page's clock: what it says as time runs out, in every language, and that it
counts down in the browser between answers."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone, translation
from rest_framework.test import APIClient

from studies.models import ParticipantSession
from studies.selectors.timing import session_clock, time_left_statement, time_left_texts
from studies.tests.factories import make_study
from studies.tests.test_participant_api import current, start


@pytest.mark.parametrize(
    ("seconds", "limit", "text"),
    [
        (600, 10, "10 minutes left"),  # nothing used yet: the limit is not repeated
        (541, 10, "10 minutes left"),  # rounded up, never down
        (540, 10, "About 9 of your 10 minutes left"),
        (170, 10, "About 3 of your 10 minutes left"),
        (61, 10, "About 2 of your 10 minutes left"),
        (60, 10, "1 minute left"),
        (59, 10, "59 seconds left"),
        (50, 1, "50 seconds left"),  # was "0 of your 1 minutes left"
        (1, 1, "1 second left"),
        (0, 1, "0 seconds left"),
        (-5, 1, "0 seconds left"),
        (60, 1, "1 minute left"),
    ],
)
def test_the_clock_reads_well_and_never_says_zero_minutes_while_time_remains(seconds, limit, text):
    with translation.override("en"):
        assert time_left_statement(seconds_left=seconds, limit=limit) == text


def test_the_clock_translates_only_the_wording_it_says(monkeypatch):
    # It goes out with every answer: one plural lookup, not one for each wording.
    from studies.selectors import timing

    looked_up = []
    real = timing.ngettext
    monkeypatch.setattr(timing, "ngettext", lambda *a: looked_up.append(a[0]) or real(*a))
    for seconds in (30, 60, 170):
        assert time_left_statement(seconds_left=seconds, limit=10)
    assert len(looked_up) == 3 and len(set(looked_up)) == 3


@pytest.mark.parametrize(
    ("language", "texts"),
    [
        (
            "de",
            ["Noch 1 Minute", "Noch 2 Minuten", "Noch 1 Sekunde", "Noch 30 Sekunden",
             "Noch etwa 3 von Ihren 10 Minuten"],
        ),
        (
            "es",
            ["Le queda 1 minuto", "Le quedan 2 minutos", "Le queda 1 segundo",
             "Le quedan 30 segundos", "Le quedan unos 3 de sus 10 minutos"],
        ),
    ],
)  # fmt: skip
def test_the_clock_has_singular_and_plural_forms_in_german_and_spanish(language, texts):
    with translation.override(language):
        said = [
            time_left_statement(seconds_left=seconds, limit=limit)
            for seconds, limit in [(60, 10), (120, 2), (1, 10), (30, 10), (170, 10)]
        ]
        forms = time_left_texts()
    assert said == texts
    for one, other in forms.values():
        assert one != other


@pytest.mark.django_db
def test_the_trial_page_and_the_api_give_the_script_its_figures(client, researcher):
    study = make_study(researcher, time_limit_minutes=10)
    token = start(APIClient(), study).json()["token"]
    session = ParticipantSession.objects.get(token=token)
    client.post(reverse("participate:begin", args=[token]))
    ParticipantSession.objects.filter(pk=session.pk).update(
        deadline=timezone.now() + timedelta(seconds=170)
    )
    page = client.get(reverse("participate:session", args=[token])).content.decode()
    assert "About 3 of your 10 minutes left" in page
    assert 'data-limit="10"' in page and "data-seconds-left=" in page
    assert "js/clock.js" in page
    session.refresh_from_db()
    clock = session_clock(session)
    assert 160 <= clock.seconds_left <= 170 and clock.limit == 10
    reply = current(APIClient(), token)
    assert reply.status_code == 200
    assert 160 <= reply.json()["seconds_left"] <= 170
    assert reply.json()["time_left"] == "About 3 of your 10 minutes left"


@pytest.mark.django_db
def test_the_session_state_and_the_clock_round_the_seconds_alike(researcher, monkeypatch):
    study = make_study(researcher, time_limit_minutes=10)
    token = start(APIClient(), study).json()["token"]
    deadline = timezone.now() + timedelta(seconds=3600)
    ParticipantSession.objects.filter(token=token).update(deadline=deadline)
    # 0.4 s before the deadline: rounded up, so neither says "0" while time remains.
    monkeypatch.setattr(timezone, "now", lambda: deadline - timedelta(seconds=0.4))
    session = ParticipantSession.objects.get(token=token)
    assert session_clock(session).seconds_left == 1
    assert current(APIClient(), token).json()["seconds_left"] == 1
