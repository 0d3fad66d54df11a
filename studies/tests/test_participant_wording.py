"""What participants read: each platform's own words, one statement of time, one thank-you."""

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from studies.models import ParticipantSession, Study
from studies.selectors.study import trial_current
from studies.selectors.timing import study_expected_minutes, time_statement
from studies.starter_texts import starter_texts
from studies.tests.factories import make_study
from studies.tests.test_participant_pages import answer_all, form_for, session_url

pytestmark = pytest.mark.django_db

PLATFORMS = {
    # platform: (its id parameter, how the id is named, the way back)
    "prolific": ("PROLIFIC_PID", "your Prolific ID", "open the study again from Prolific"),
    "sona": ("id", "your SONA ID", "open the study again from its page on SONA"),
    "mturk": ("workerId", "your MTurk worker ID", "open the HIT again from MTurk"),
    "pid": ("pid", "your participant ID", "open the study link again exactly as you received it"),
}


def _main(response) -> str:
    text = response.content.decode()
    return re.search(r"<main.*?</main>", text, re.S)[0]


@pytest.mark.parametrize("platform", PLATFORMS)
def test_each_platform_names_its_own_parameter_and_way_back(client, researcher, platform):
    param, id_name, way_back = PLATFORMS[platform]
    study = make_study(researcher, platform=platform)
    welcome = reverse("participate:welcome", args=[study.slug])
    for query in ({}, {param: "%SURVEY_CODE%"}, {param: "<b>x</b>"}):
        page = _main(client.get(welcome, query))
        assert id_name.casefold() in page.casefold()
        assert f"the {param} part of the address" in page
        assert way_back in page
        # "study" is never the name of a platform.
        assert "from study" not in page and "study ID" not in page

    first = Client()
    first.post(
        reverse("participate:consent", args=[study.slug]), {"choice": "agree", param: "ab12"}
    )
    taken = _main(Client().get(welcome, {param: "ab12"}))
    assert "already started" in taken and id_name in taken
    assert "from study" not in taken


def test_a_plain_link_study_sends_people_back_to_whoever_sent_the_link(client, researcher):
    study = make_study(researcher, platform="pid")
    page = _main(client.get(reverse("participate:welcome", args=[study.slug])))
    assert "contact the researcher who sent you the link" in page


def test_inside_a_study_the_brand_is_not_a_link_out(client, researcher):
    study = make_study(researcher)
    page = client.get(reverse("participate:welcome", args=[study.slug]), {"PROLIFIC_PID": "b1"})
    header = re.search(r"<header.*?</header>", page.content.decode(), re.S)[0]
    assert "<a" not in header and "Chartroom" in header
    home = client.get(reverse("home")).content.decode()
    assert re.search(r'<a class="brand" href="/"', home)


# ------------------------------------------------------------------ time


def test_every_page_states_time_the_same_way(client, researcher):
    study = make_study(researcher, expected_minutes=15, time_limit_minutes=60)
    sentence = "It usually takes about 15 minutes; you have up to 60."
    params = {"PROLIFIC_PID": "time1"}
    assert sentence in _main(client.get(reverse("participate:welcome", args=[study.slug]), params))
    assert sentence in _main(client.get(reverse("participate:consent", args=[study.slug]), params))
    client.post(reverse("participate:consent", args=[study.slug]), {"choice": "agree", **params})
    session = ParticipantSession.objects.get(external_id="time1")
    instructions = _main(client.get(session_url(session)))
    assert sentence in instructions
    client.post(reverse("participate:begin", args=[session.token]))
    trial = _main(client.get(session_url(session)))
    assert re.search(r"60 minutes left|About 59 of your 60 minutes left", trial)
    for page in (instructions, trial):
        assert "about 59 min" not in page and "in total" not in page


def test_the_json_flow_states_time_in_the_same_words(researcher):
    from rest_framework.test import APIClient

    study = make_study(researcher, expected_minutes=15, time_limit_minutes=60)
    info = APIClient().get(f"/api/v1/participate/studies/{study.slug}/").json()
    assert (info["expected_minutes"], info["time_limit_minutes"]) == (15, 60)
    assert info["time_statement"] == "It usually takes about 15 minutes; you have up to 60."


def test_without_an_expected_duration_only_the_limit_is_stated(client, researcher):
    study = make_study(researcher, time_limit_minutes=45)
    page = _main(
        client.get(reverse("participate:welcome", args=[study.slug]), {"PROLIFIC_PID": "t2"})
    )
    assert "You have up to 45 minutes." in page and "usually" not in page


def test_the_expected_duration_is_estimated_from_completed_pilot_sessions(researcher):
    study = make_study(researcher, status=Study.Status.PILOT, time_limit_minutes=60)
    assert study_expected_minutes(study) is None
    now = timezone.now()
    for i, minutes in enumerate((10, 12, 21)):
        ParticipantSession.objects.create(
            study=study,
            is_pilot=True,
            status="completed",
            external_id=f"pilot{i}",
            consented_at=now - timedelta(minutes=minutes),
            completed_at=now,
        )
    ParticipantSession.objects.create(
        study=study, is_pilot=True, status="timed_out", external_id="slow", consented_at=now
    )
    assert study_expected_minutes(study) == 12
    study.expected_minutes = 20  # the researcher's figure wins
    assert study_expected_minutes(study) == 20


def test_an_expected_duration_past_the_limit_is_not_promised():
    assert time_statement(expected=70, limit=60) == "You have up to 60 minutes."
    assert (
        time_statement(expected=1, limit=5) == "It usually takes about 1 minute; you have up to 5."
    )


def test_with_the_starter_texts_time_and_withdrawal_are_each_said_once(client, researcher):
    study = make_study(researcher, expected_minutes=15, time_limit_minutes=60)
    for name, text in starter_texts(study).items():
        setattr(study, name, text)
    study.save()
    params = {"PROLIFIC_PID": "once1"}
    consent = _main(client.get(reverse("participate:consent", args=[study.slug]), params))
    assert consent.count("you have up to 60") == 1
    assert consent.count("withdraw at any time") == 1
    assert "the link at the bottom of every page" in consent
    client.post(reverse("participate:consent", args=[study.slug]), {"choice": "agree", **params})
    session = ParticipantSession.objects.get(external_id="once1")
    instructions = _main(client.get(session_url(session)))
    assert instructions.count("you have up to 60") == 1


# ------------------------------------------------------------------ counting pages


def test_pages_are_counted_as_pages_so_a_check_looks_like_any_other(client, researcher):
    # 3 pairs (6 charts) and 2 attention checks, one of them without a chart.
    study = make_study(researcher, pairs=3)
    client.post(
        reverse("participate:consent", args=[study.slug]),
        {"choice": "agree", "PROLIFIC_PID": "count1"},
    )
    session = ParticipantSession.objects.get(external_id="count1")
    instructions = _main(client.get(session_url(session)))
    assert "There are 8 pages, one question each." in instructions
    assert "chart" not in instructions.casefold()
    client.post(reverse("participate:begin", args=[session.token]))
    for number in range(1, 9):
        page = client.get(session_url(session)).content.decode()
        trial = trial_current(session)
        # The title, the counter and the script's counter all say the same, check or not.
        assert f"<title>Page {number} of 8 · " in page
        assert f"<span data-trial-count>Page {number} of 8</span>" in page
        assert 'data-count-text="Page {number} of {total}"' in page
        assert "Chart" not in re.sub(r"Chart for this question", "", _main_of(page))
        client.post(reverse("participate:answer", args=[session.token]), form_for(trial))
        session.refresh_from_db()
    assert session.current_position == 8


def _main_of(html: str) -> str:
    return re.search(r"<main.*?</main>", html, re.S)[0]


# ------------------------------------------------------------------ withdrawing

NEXT_STEP = {
    "prolific": "return your submission on Prolific",
    "sona": "contact the researcher through SONA",
    "mturk": "return the HIT on MTurk",
    "pid": "You can close this window now.",
}


@pytest.mark.parametrize("platform", NEXT_STEP)
def test_after_withdrawing_the_platform_says_what_is_left_to_do(client, researcher, platform):
    param = PLATFORMS[platform][0]
    study = make_study(researcher, platform=platform)
    client.post(
        reverse("participate:consent", args=[study.slug]), {"choice": "agree", param: "wd1"}
    )
    session = ParticipantSession.objects.get(external_id="wd1")
    client.post(reverse("participate:withdraw", args=[session.token]))
    page = _main(client.get(session_url(session)))
    assert "You have withdrawn" in page and "answers were deleted" in page
    assert NEXT_STEP[platform] in page
    for other in ("prolific", "sona", "mturk"):
        if other != platform:
            assert NEXT_STEP[other] not in page


def test_the_study_link_again_after_withdrawing_says_so_not_welcome_back(client, researcher):
    study = make_study(researcher)
    welcome = reverse("participate:welcome", args=[study.slug])
    client.post(
        reverse("participate:consent", args=[study.slug]),
        {"choice": "agree", "PROLIFIC_PID": "wd2"},
    )
    session = ParticipantSession.objects.get(external_id="wd2")
    client.post(reverse("participate:withdraw", args=[session.token]))
    page = _main(client.get(welcome, {"PROLIFIC_PID": "wd2"}))
    assert "You have withdrawn" in page and "your answers were deleted" in page
    assert "return your submission on Prolific" in page
    assert "Welcome back" not in page and "already taken part" not in page
    # Another browser with the same id learns only that the id took part, not how it ended.
    elsewhere = _main(Client().get(welcome, {"PROLIFIC_PID": "wd2"}))
    assert "already started with your Prolific ID" in elsewhere
    assert "withdr" not in elsewhere.casefold()


# ------------------------------------------------------------------ the end


@pytest.mark.parametrize(
    "debrief",
    ["Some charts were drawn to mislead.", "Thank you! Some charts were drawn to mislead."],
)
def test_the_debrief_says_thank_you_once(client, researcher, debrief):
    study = make_study(researcher, pairs=3, debrief_text=debrief)
    client.post(
        reverse("participate:consent", args=[study.slug]),
        {"choice": "agree", "PROLIFIC_PID": "end1"},
    )
    session = ParticipantSession.objects.get(external_id="end1")
    client.post(reverse("participate:begin", args=[session.token]))
    answer_all(client, session)
    page = _main(client.get(session_url(session)))
    assert len(re.findall(r"thank", page, re.I)) == 1, page
