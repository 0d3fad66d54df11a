"""The participant's way through a study in the HTML pages (Django test client)."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from studies.models import AnswerType, ParticipantSession, Response, Study
from studies.selectors.study import trial_current
from studies.tests.factories import make_study

pytestmark = pytest.mark.django_db

PID = "5f1d2c3b4a5968778695a4b3"


def link(study, **params):
    params = params or {"PROLIFIC_PID": PID, "STUDY_ID": "st1", "SESSION_ID": "se1"}
    query = "&".join(f"{k}={v}" for k, v in params.items())
    return reverse("participate:welcome", args=[study.slug]) + ("?" + query if query else "")


def consent_url(study):
    return reverse("participate:consent", args=[study.slug])


def start(client, study, pid=PID):
    response = client.post(
        consent_url(study), {"choice": "agree", "PROLIFIC_PID": pid, "STUDY_ID": "st1"}
    )
    assert response.status_code == 302, response.content[:500]
    return ParticipantSession.objects.get(study=study, external_id=pid)


def session_url(session):
    return reverse("participate:session", args=[session.token])


def form_for(trial, *, correct=True):
    """The POST body a participant's browser sends for a trial (without JavaScript)."""
    data = {"position": trial.position, "key": f"k{trial.position}"}
    if trial.is_attention:
        check = trial.attention_check
        if check.answer_type == AnswerType.MULTIPLE_CHOICE:
            data["choice"] = "3" if correct else "0"
        else:
            data["number"] = "10" if correct else "3"
        return data
    kind = trial.question.answer_type
    if kind == AnswerType.MULTIPLE_CHOICE:
        data["choice"] = "1" if correct else "0"
    elif kind == AnswerType.FREE_TEXT:
        data["number"] = "1.2 million" if correct else "7"
    else:
        order = ["Alpha", "Beta", "Gamma"] if correct else ["Gamma", "Beta", "Alpha"]
        options = trial.question.options
        for rank, item in enumerate(order, start=1):
            data[f"rank_{options.index(item)}"] = str(rank)
    return data


def answer_all(client, session, *, fail_checks=False):
    session.refresh_from_db()
    while session.current_position < session.trial_count:
        trial = trial_current(session)
        client.get(session_url(session))
        correct = not (fail_checks and trial.is_attention)
        response = client.post(
            reverse("participate:answer", args=[session.token]), form_for(trial, correct=correct)
        )
        assert response.status_code == 302
        session.refresh_from_db()
        assert session.current_position > trial.position, "the answer was refused"


@pytest.fixture
def study(researcher):
    return make_study(
        researcher, pairs=3, completion_url="https://example.org/done?cc={code}&p={pid}"
    )


def test_opening_the_link_shows_a_welcome_and_starts_nothing(client, study):
    response = client.get(link(study))
    assert response.status_code == 200
    assert b"Begin" in response.content and PID.encode() in response.content
    assert client.get(consent_url(study) + f"?PROLIFIC_PID={PID}").status_code == 200
    assert not ParticipantSession.objects.exists()


def test_participant_pages_hide_the_researcher_navigation(client, study, researcher, password):
    client.login(username=researcher.username, password=password)
    page = client.get(link(study)).content.decode()
    assert "Sign out" not in page and "API tokens" not in page
    assert study.title in page


@pytest.mark.parametrize(
    "query,message",
    [
        ({}, b"missing your Prolific ID"),
        ({"PROLIFIC_PID": "{{%PROLIFIC_PID%}}"}, b"placeholder"),
        ({"PROLIFIC_PID": "<script>alert(1)</script>"}, b"does not look right"),
        ({"PROLIFIC_PID": "x" * 300}, b"does not look right"),
    ],
)
def test_missing_or_malformed_platform_ids_get_a_clear_page(client, study, query, message):
    url = reverse("participate:welcome", args=[study.slug])
    response = client.get(url, query)
    assert response.status_code == 400 and message in response.content
    response = client.post(consent_url(study), {"choice": "agree", **query})
    assert response.status_code == 400
    assert not ParticipantSession.objects.exists()


def test_mturk_previews_are_asked_to_accept_the_hit_first(client, researcher):
    study = make_study(researcher, platform="mturk")
    response = client.get(
        reverse("participate:welcome", args=[study.slug]),
        {"assignmentId": "ASSIGNMENT_ID_NOT_AVAILABLE"},
    )
    assert response.status_code == 400 and b"accept it on MTurk" in response.content


def test_declining_consent_stores_only_the_decline(client, study):
    response = client.post(consent_url(study), {"choice": "decline", "PROLIFIC_PID": PID})
    assert response.status_code == 302
    assert b"chose not to take part" in client.get(response["Location"]).content
    declined = ParticipantSession.objects.get()
    assert declined.status == ParticipantSession.Status.DECLINED
    assert declined.external_id == "" and declined.platform_params == {} and declined.order == []
    assert not declined.trials.exists()


def test_consent_starts_a_session_with_its_stored_order(client, study):
    session = start(client, study)
    assert session.number == 1 and session.status == ParticipantSession.Status.IN_PROGRESS
    assert session.platform_params == {"PROLIFIC_PID": PID, "STUDY_ID": "st1"}
    assert session.trial_count == 8 and session.trials.count() == 8
    assert len(session.order) == 8 and session.order_seed is not None
    assert session.deadline > timezone.now() + timedelta(minutes=59)
    assert not session.is_pilot and not session.is_preview


def test_a_participant_goes_from_the_link_to_the_completion_redirect(client, study):
    assert b"Begin" in client.get(link(study)).content
    session = start(client, study)
    page = client.get(session_url(session))
    assert b"Instructions" in page.content
    client.post(reverse("participate:begin", args=[session.token]))
    page = client.get(session_url(session))
    assert b"Page 1 of 8" in page.content
    answer_all(client, session)
    session.refresh_from_db()
    assert session.status == ParticipantSession.Status.COMPLETED
    assert Response.objects.filter(session=session).count() == 8
    assert all(r.correct for r in Response.objects.filter(session=session))
    page = client.get(session_url(session))
    assert b"C0DE42" in page.content and b"Some charts were drawn to mislead" in page.content
    done = client.post(reverse("participate:finish", args=[session.token]))
    assert done.status_code == 302
    assert done["Location"] == f"https://example.org/done?cc=C0DE42&p={PID}"


def test_non_numeric_text_gets_a_friendly_message_and_the_trial_stays_open(client, study):
    session = start(client, study)
    client.post(reverse("participate:begin", args=[session.token]))
    while True:
        trial = trial_current(session)
        if not trial.is_attention and trial.question.answer_type == AnswerType.FREE_TEXT:
            break
        client.post(reverse("participate:answer", args=[session.token]), form_for(trial))
        session.refresh_from_db()
    before = Response.objects.count()
    response = client.post(
        reverse("participate:answer", args=[session.token]),
        {"position": trial.position, "number": "about a lot", "interactions": "5"},
    )
    # Post/redirect/get: the refusal is shown on the trial page, so a reload never re-posts.
    assert response.status_code == 302 and response["Location"] == session_url(session)
    page = client.get(response["Location"])
    assert page.status_code == 200
    assert b"Please enter a number, like 42 or 3.5." in page.content
    assert b'value="about a lot"' in page.content
    assert b'name="interactions" value="5"' in page.content
    reloaded = client.get(response["Location"])
    assert b"Please enter a number" not in reloaded.content
    # The page reads numbers by the same rule as the JSON API.
    for typed, message in [
        ("0x10", "Please type the number with the digits 0 to 9, like 42 or 3.5 (we found 0x10)."),
        ("1e-400", "That number is too large or too small to use."),
        ("½", "Please type a fraction as a decimal number, like 0.5 for ½."),
    ]:
        client.post(
            reverse("participate:answer", args=[session.token]),
            {"position": trial.position, "number": typed},
        )
        assert message in client.get(session_url(session)).content.decode()
    assert Response.objects.count() == before
    session.refresh_from_db()
    assert session.current_position == trial.position


def test_a_ranking_with_a_repeated_rank_is_refused_with_a_message(client, researcher):
    ranking = make_study(researcher, pairs=3, checks=())
    session = start(client, ranking)
    client.post(reverse("participate:begin", args=[session.token]))
    while True:
        trial = trial_current(session)
        if trial.question.answer_type == AnswerType.RANKING:
            break
        client.post(reverse("participate:answer", args=[session.token]), form_for(trial))
        session.refresh_from_db()
    response = client.post(
        reverse("participate:answer", args=[session.token]),
        {"position": trial.position, "rank_0": "1", "rank_1": "1", "rank_2": "3"},
    )
    assert response.status_code == 302
    page = client.get(response["Location"])
    assert b"its own rank, from 1 to 3" in page.content
    assert not Response.objects.filter(trial=trial).exists()


def test_a_double_click_or_retry_stores_one_answer(client, study):
    session = start(client, study)
    trial = trial_current(session)
    url = reverse("participate:answer", args=[session.token])
    for _ in range(3):
        assert client.post(url, form_for(trial)).status_code == 302
    assert Response.objects.filter(session=session).count() == 1
    session.refresh_from_db()
    assert session.current_position == 1


def test_there_is_no_going_back_to_change_an_answer(client, study):
    session = start(client, study)
    first = trial_current(session)
    url = reverse("participate:answer", args=[session.token])
    client.post(url, form_for(first))
    changed = {**form_for(first, correct=False), "key": "another"}
    assert client.post(url, changed).status_code == 302
    stored = Response.objects.get(trial=first)
    assert stored.correct is True
    assert Response.objects.filter(session=session).count() == 1


def test_an_answer_from_a_stale_tab_is_not_taken_and_the_next_page_says_so(client, study):
    session = start(client, study)
    first = trial_current(session)
    url = reverse("participate:answer", args=[session.token])
    client.post(url, form_for(first))  # in the other tab
    client.post(url, {**form_for(first, correct=False), "key": "stale-tab"})
    page = client.get(session_url(session)).content.decode()
    assert "This chart already has your answer" in page
    assert 'name="position" value="1"' in page  # on the trial that is current now
    assert "already has your answer" not in client.get(session_url(session)).content.decode()


def test_answers_to_a_later_trial_are_not_stored(client, study):
    session = start(client, study)
    later = session.trials.get(position=3)
    response = client.post(reverse("participate:answer", args=[session.token]), form_for(later))
    assert response.status_code == 302
    assert not Response.objects.exists()


def test_a_reload_resumes_at_the_current_trial(client, study):
    session = start(client, study)
    client.post(reverse("participate:begin", args=[session.token]))
    for _ in range(3):
        trial = trial_current(session)
        client.post(reverse("participate:answer", args=[session.token]), form_for(trial))
        session.refresh_from_db()
    page = client.get(session_url(session))
    assert b"Page 4 of 8" in page.content
    shown_at = session.trials.get(position=3).shown_at
    client.get(session_url(session))
    # Reloading does not restart the trial's clock.
    assert session.trials.get(position=3).shown_at == shown_at


def test_the_browser_that_started_resumes_from_the_study_link(client, study):
    session = start(client, study)
    page = client.get(link(study))
    assert b"Welcome back" in page.content and session.token.encode() in page.content
    again = client.post(consent_url(study), {"choice": "agree", "PROLIFIC_PID": PID})
    assert again["Location"] == session_url(session)
    assert ParticipantSession.objects.count() == 1


def test_a_browser_without_a_platform_id_resumes_through_its_cookie(client, researcher):
    study = make_study(researcher, platform="none")
    first = client.post(consent_url(study), {"choice": "agree"})
    session = ParticipantSession.objects.get()
    assert first["Location"] == session_url(session)
    assert (
        session.token.encode()
        in client.get(reverse("participate:welcome", args=[study.slug])).content
    )
    assert client.post(consent_url(study), {"choice": "agree"})["Location"] == session_url(session)
    assert ParticipantSession.objects.count() == 1


def test_a_finished_participant_sees_their_code_again(client, study):
    session = start(client, study)
    answer_all(client, session)
    page = client.get(link(study))
    assert b"already taken part" in page.content
    assert b"C0DE42" in client.get(session_url(session)).content


def test_the_time_limit_ends_the_session_as_timed_out(client, study):
    session = start(client, study)
    trial = trial_current(session)
    ParticipantSession.objects.filter(pk=session.pk).update(
        deadline=timezone.now() - timedelta(seconds=1)
    )
    response = client.post(reverse("participate:answer", args=[session.token]), form_for(trial))
    assert response.status_code == 302
    assert b"time limit" in client.get(session_url(session)).content
    session.refresh_from_db()
    assert session.status == ParticipantSession.Status.TIMED_OUT
    assert not Response.objects.exists()


def test_withdrawing_deletes_the_answers(client, study):
    session = start(client, study)
    for _ in range(2):
        client.post(
            reverse("participate:answer", args=[session.token]), form_for(trial_current(session))
        )
        session.refresh_from_db()
    assert (
        b"will be deleted"
        in client.get(reverse("participate:withdraw", args=[session.token])).content
    )
    client.post(reverse("participate:withdraw", args=[session.token]))
    session.refresh_from_db()
    assert session.status == ParticipantSession.Status.WITHDRAWN and session.answers_deleted
    assert not Response.objects.filter(session=session).exists()
    assert b"answers were deleted" in client.get(session_url(session)).content


def test_withdrawing_keeps_the_answers_when_the_consent_says_so(client, researcher):
    study = make_study(researcher, keep_answers_on_withdrawal=True)
    session = start(client, study)
    client.post(
        reverse("participate:answer", args=[session.token]), form_for(trial_current(session))
    )
    client.post(reverse("participate:withdraw", args=[session.token]))
    session.refresh_from_db()
    assert session.status == ParticipantSession.Status.WITHDRAWN
    assert Response.objects.filter(session=session).count() == 1
    assert b"are kept" in client.get(session_url(session)).content


@pytest.mark.parametrize(
    "status,text",
    [
        (Study.Status.PAUSED, b"paused"),
        (Study.Status.CLOSED, b"has closed"),
        (Study.Status.DRAFT, b"not open yet"),
    ],
)
def test_a_study_that_is_not_open_shows_a_polite_page_and_starts_no_session(
    client, study, status, text
):
    Study.objects.filter(pk=study.pk).update(status=status)
    assert text in client.get(link(study)).content
    response = client.post(consent_url(study), {"choice": "agree", "PROLIFIC_PID": PID})
    assert response.status_code == 200 and text in response.content
    assert not ParticipantSession.objects.exists()


def test_a_full_study_shows_a_polite_page_and_starts_no_session(client, researcher):
    study = make_study(researcher, target_participants=1)
    start(client, study, pid="first")
    later = client.__class__()
    assert b"all the participants it needs" in later.get(link(study, PROLIFIC_PID="second")).content
    response = later.post(consent_url(study), {"choice": "agree", "PROLIFIC_PID": "second"})
    assert b"all the participants it needs" in response.content
    assert ParticipantSession.objects.count() == 1


def test_a_timed_out_place_frees_up_for_the_next_participant(client, researcher):
    study = make_study(researcher, target_participants=1)
    first = start(client, study, pid="first")
    ParticipantSession.objects.filter(pk=first.pk).update(
        deadline=timezone.now() - timedelta(seconds=1)
    )
    assert (
        client.__class__()
        .post(consent_url(study), {"choice": "agree", "PROLIFIC_PID": "second"})
        .status_code
        == 302
    )


def test_pilot_sessions_are_marked_and_never_counted(client, researcher):
    study = make_study(researcher, status=Study.Status.PILOT, target_participants=1)
    one = start(client, study, pid="a")
    two = start(client.__class__(), study, pid="b")
    assert one.is_pilot and two.is_pilot
    study.refresh_from_db()
    assert study.live_counter == 0 and study.test_counter == 2
    assert ParticipantSession.objects.counted().count() == 0


def test_a_closed_study_stops_sessions_in_progress(client, study):
    session = start(client, study)
    Study.objects.filter(pk=study.pk).update(status=Study.Status.CLOSED)
    response = client.post(
        reverse("participate:answer", args=[session.token]), form_for(trial_current(session))
    )
    assert response.status_code == 302
    assert b"has closed" in client.get(session_url(session)).content
    assert not Response.objects.exists()


def test_a_paused_study_lets_sessions_in_progress_finish(client, study):
    session = start(client, study)
    Study.objects.filter(pk=study.pk).update(status=Study.Status.PAUSED)
    answer_all(client, session)
    session.refresh_from_db()
    assert session.status == ParticipantSession.Status.COMPLETED


def test_an_oversized_body_is_refused(client, study):
    session = start(client, study)
    response = client.post(
        reverse("participate:answer", args=[session.token]),
        {"position": 0, "number": "9" * 100_000},
    )
    assert response.status_code == 413
    assert not Response.objects.exists()


def test_participant_pages_are_not_cached_and_leak_no_referrer(client, study):
    session = start(client, study)
    response = client.get(session_url(session))
    assert response["Referrer-Policy"] == "no-referrer"
    assert "no-store" in response["Cache-Control"] or "no-cache" in response["Cache-Control"]


def test_a_ranking_never_starts_in_the_keyed_order(researcher):
    from studies.services.sessions import Identity, session_start

    study = make_study(researcher, pairs=3, checks=())
    for n in range(30):
        session = session_start(
            study=study, identity=Identity("prolific", f"r{n}", {"PROLIFIC_PID": f"r{n}"})
        ).session
        for trial in session.trials.exclude(item_order=[]).select_related("question"):
            shown = [trial.question.options[i] for i in trial.item_order]
            assert sorted(shown) == ["Alpha", "Beta", "Gamma"] and shown != [
                "Alpha",
                "Beta",
                "Gamma",
            ]


def test_a_stored_order_is_reproduced_from_the_study_seed_and_participant_number(researcher):
    from studies.ordering import CheckSlot, build_order
    from studies.services.sessions import Identity, session_start

    study = make_study(researcher, pairs=5, min_gap=2)
    for n in range(1, 5):
        session = session_start(
            study=study, identity=Identity("prolific", f"s{n}", {"PROLIFIC_PID": f"s{n}"})
        ).session
        again = build_order(
            pair_ids=list(study.study_pairs.values_list("question_id", flat=True)),
            checks=[CheckSlot(c.id, c.position) for c in study.attention_checks.all()],
            study_seed=study.seed,
            participant_number=session.number,
            min_gap=study.min_gap,
        )
        assert session.order == again.as_json() and session.order_seed == again.seed
        shown = [
            {"kind": "check", "check": t.attention_check_id}
            if t.is_attention
            else {"kind": "chart", "pair": t.question_id, "version": t.chart.version}
            for t in session.trials.select_related("chart").order_by("position")
        ]
        assert shown == session.order
