"""The researcher's study pages: set-up forms, status buttons, monitoring, access."""

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from studies.models import AttentionCheck, ParticipantSession, Response, Study
from studies.services.sessions import Identity, response_record, session_start
from studies.tests.factories import answer_for, make_chart_set, make_study, png_bytes

pytestmark = pytest.mark.django_db


def run_participant(study, pid, *, fail_checks=False, stop_after=None):
    session = session_start(
        study=study, identity=Identity("prolific", pid, {"PROLIFIC_PID": pid})
    ).session
    trials = session.trials.select_related("question", "attention_check").order_by("position")
    for trial in trials:
        if stop_after is not None and trial.position >= stop_after:
            break
        answer = answer_for(trial, correct=not (fail_checks and trial.is_attention))
        response_record(token=session.token, position=trial.position, answer=answer)
    session.refresh_from_db()
    return session


def test_creating_a_study_leads_to_its_page(signed_in):
    response = signed_in.post(reverse("studies:create"), {"title": "Axis study", "description": ""})
    study = Study.objects.get(title="Axis study")
    assert response["Location"] == reverse("studies:detail", args=[study.slug])
    page = signed_in.get(response["Location"]).content.decode()
    assert "Before it can run" in page and "Choose at least one chart pair." in page
    assert "No participants yet." in page


def test_the_study_list_shows_own_and_shared_studies_only(signed_in, researcher, other_researcher):
    mine = make_study(researcher)
    theirs = make_study(other_researcher)
    page = signed_in.get(reverse("studies:list")).content.decode()
    assert mine.title in page and theirs.title not in page


def test_others_studies_are_not_found(signed_in, other_researcher):
    theirs = make_study(other_researcher)
    for name in ("detail", "edit", "pairs", "checks"):
        assert signed_in.get(reverse(f"studies:{name}", args=[theirs.slug])).status_code == 404
    assert (
        signed_in.post(
            reverse("studies:status", args=[theirs.slug]), {"status": "closed"}
        ).status_code
        == 404
    )
    assert signed_in.post(reverse("studies:preview", args=[theirs.slug])).status_code == 404


def test_annotators_and_visitors_cannot_open_study_pages(client, annotator, password, researcher):
    study = make_study(researcher)
    assert client.get(reverse("studies:detail", args=[study.slug])).status_code == 302
    client.login(username=annotator.username, password=password)
    assert client.get(reverse("studies:detail", args=[study.slug])).status_code == 403


def test_settings_are_saved_from_the_form(signed_in, researcher):
    study = make_study(researcher, status="draft")
    url = reverse("studies:edit", args=[study.slug])
    form = signed_in.get(url)
    assert b"Consent text" in form.content
    data = {
        "title": study.title,
        "description": "",
        "consent_text": "Consent v2",
        "instructions_text": "Read carefully.",
        "debrief_text": "Thanks",
        "target_participants": "70",
        "time_limit_minutes": "45",
        "expected_minutes": "20",
        "allowed_devices": "all",
        "platform": "sona",
        "completion_code": "",
        "completion_url": "https://uni.sona-systems.com/webstudy_credit.aspx?experiment_id=1&survey_code={pid}",
        "max_attention_failures": "1",
        "min_seconds_per_trial": "2.5",
        "min_trial_ms": "400",
        "exclude_incomplete": "on",
        "seed": "123",
        "min_gap": "2",
    }
    response = signed_in.post(url, data)
    assert response.status_code == 302
    study.refresh_from_db()
    assert (study.consent_text, study.target_participants, study.platform, study.min_gap) == (
        "Consent v2",
        70,
        "sona",
        2,
    )
    assert study.allows_phones and study.expected_minutes == 20
    assert not study.fast_answer_commit  # only when the researcher ticks it
    assert b"Faster answer saving" in form.content
    assert signed_in.post(url, {**data, "fast_answer_commit": "on"}).status_code == 302
    study.refresh_from_db()
    assert study.fast_answer_commit
    bad = signed_in.post(url, {**data, "completion_url": "ftp://nope"})
    assert bad.status_code == 200 and "https://" in bad.content.decode()
    # One rule for the time limit in the browser and the form: 1 to 1440 minutes.
    limit_input = re.search(r'<input[^>]*name="time_limit_minutes"[^>]*>', form.content.decode())[0]
    assert 'min="1"' in limit_input and 'max="1440"' in limit_input
    for wrong, message in (("0", "greater than or equal to 1"), ("-5", "greater than or equal to 1"),
                           ("1441", "less than or equal to 1440")):  # fmt: skip
        refused = signed_in.post(url, {**data, "time_limit_minutes": wrong})
        assert refused.status_code == 200 and message in refused.content.decode()


def test_a_video_is_uploaded_from_the_settings_page(signed_in, researcher):
    study = make_study(researcher, status="draft")
    url = reverse("studies:edit", args=[study.slug])
    mp4 = SimpleUploadedFile("intro.mp4", b"\x00\x00\x00\x18ftypmp42" + b"\x00" * 64)
    assert signed_in.post(url, {"action": "video", "video": mp4}).status_code == 302
    study.refresh_from_db()
    assert study.instructions_video.name.endswith(".mp4")
    text = SimpleUploadedFile("intro.mp4", b"just text")
    response = signed_in.post(url, {"action": "video", "video": text})
    assert response.status_code == 200 and b"not a video" in response.content


def test_pairs_are_chosen_on_the_pairs_page(signed_in, researcher):
    study = make_study(researcher, status="draft")
    other = make_chart_set(researcher, pairs=4)
    url = reverse("studies:pairs", args=[study.slug])
    page = signed_in.get(url, {"set": other.slug})
    assert b"G1_Q4" in page.content
    ids = [str(i) for i in other.questions.values_list("id", flat=True)][:3]
    # The study's three pairs come from another set: a confirmation step first.
    response = signed_in.post(url, {"chart_set": other.slug, "questions": ids})
    assert response.status_code == 200 and b"Replace 3 chosen pairs?" in response.content
    study.refresh_from_db()
    assert study.chart_set != other and study.study_pairs.count() == 3
    response = signed_in.post(url, {"chart_set": other.slug, "questions": ids, "replace": "1"})
    assert response.status_code == 302
    study.refresh_from_db()
    assert study.chart_set == other and study.study_pairs.count() == 3


def test_the_confirmation_step_sends_the_same_choice_again(signed_in, researcher):
    study = make_study(researcher, status="draft", pairs=2)
    other = make_chart_set(researcher, pairs=3)
    url = reverse("studies:pairs", args=[study.slug])
    confirm = signed_in.post(url, {"chart_set": other.slug, "all": "1"})
    page = confirm.content.decode()
    assert 'name="replace" value="1"' in page and 'name="all" value="1"' in page
    assert "every complete pair" in page and "G1_Q1" in page
    assert "Keep the current pairs" in page
    assert study.study_pairs.count() == 2
    done = signed_in.post(url, {"chart_set": other.slug, "all": "1", "replace": "1"})
    assert done.status_code == 302 and study.study_pairs.count() == 3


def test_attention_checks_are_added_and_deleted_on_their_page(signed_in, researcher):
    study = make_study(researcher, status="draft", checks=())
    url = reverse("studies:checks", args=[study.slug])
    assert b"No attention checks yet." in signed_in.get(url).content
    response = signed_in.post(
        url,
        {
            "kind": "instructed",
            "prompt": "Select 'Agree'.",
            "answer_type": "multiple_choice",
            "options": "Disagree\nAgree\n",
            "answer_key": "Agree",
            "tolerance": "0.1",
            "position": "",
        },
    )
    assert response.status_code == 302
    response = signed_in.post(
        url,
        {
            "kind": "sanity",
            "prompt": "How many apples?",
            "answer_type": "free_text",
            "options": "",
            "answer_key": "10",
            "tolerance": "0.1",
            "position": "4",
            "image": SimpleUploadedFile("a.png", png_bytes()),
        },
    )
    assert response.status_code == 302
    bad = signed_in.post(
        url,
        {
            "kind": "sanity",
            "prompt": "?",
            "answer_type": "free_text",
            "answer_key": "1",
            "tolerance": "0.1",
        },
    )
    assert bad.status_code == 200 and b"needs its chart image" in bad.content
    assert AttentionCheck.objects.filter(study=study).count() == 2
    check = AttentionCheck.objects.filter(study=study).first()
    signed_in.post(reverse("studies:check-delete", args=[study.slug, check.pk]))
    assert AttentionCheck.objects.filter(study=study).count() == 1


def test_status_buttons_change_the_status_or_explain_why_not(signed_in, researcher):
    empty = Study.objects.create(owner=researcher, title="Empty", slug="empty")
    response = signed_in.post(
        reverse("studies:status", args=["empty"]), {"status": "live"}, follow=True
    )
    assert b"The status did not change" in response.content and b"chart pair" in response.content
    empty.refresh_from_db()
    assert empty.status == "draft"
    study = make_study(researcher, status="draft")
    signed_in.post(reverse("studies:status", args=[study.slug]), {"status": "live"})
    study.refresh_from_db()
    assert study.status == "live"


def test_preview_starts_a_marked_session_in_any_status(signed_in, researcher):
    study = make_study(researcher, status="draft")
    response = signed_in.post(reverse("studies:preview", args=[study.slug]))
    session = ParticipantSession.objects.get()
    assert session.is_preview and response["Location"] == reverse(
        "participate:session", args=[session.token]
    )
    study.refresh_from_db()
    assert study.live_counter == 0


def test_the_monitoring_page_counts_sessions_and_previews_exclusions(signed_in, researcher):
    study = make_study(researcher, pairs=4, max_attention_failures=0)
    run_participant(study, "done1")
    run_participant(study, "done2")
    run_participant(study, "careless", fail_checks=True)
    run_participant(study, "halfway", stop_after=3)
    gone = run_participant(study, "gone", stop_after=2)
    from studies.services.sessions import session_withdraw

    session_withdraw(token=gone.token)
    session_start(study=study, identity=Identity("prolific"), preview=True)
    page = signed_in.get(reverse("studies:detail", args=[study.slug])).content.decode()
    for label, n in [("started", 5), ("in progress", 1), ("completed", 3), ("withdrawn", 1)]:
        assert f"<strong>{n}</strong><span>{label}</span>" in page, label
    assert "<strong>2</strong><span>excluded by the rules</span>" in page
    assert "failed 2 attention checks (allowed 0)" in page
    assert "0 / 1</strong><span>pilot / preview" in page
    assert "largest pair-order imbalance" in page


def test_one_participants_answers_and_order_seed_are_shown(signed_in, researcher):
    study = make_study(researcher, pairs=2)
    session = run_participant(study, "someone", fail_checks=True)
    page = signed_in.get(reverse("studies:session", args=[study.slug, session.pk])).content.decode()
    assert str(session.order_seed) in page and "someone" in page
    assert page.count('badge badge-failed">no') == 2
    assert "<td>2. 2019</td>" in page and "<td>1.2</td>" in page
    assert Response.objects.filter(session=session).count() == 6


def test_the_settings_form_takes_the_tighter_of_its_own_and_the_models_bounds():
    from django import forms
    from django.core.validators import MaxValueValidator, MinValueValidator
    from django.db import models

    from core.form_bounds import bounds_from_model

    field = forms.FloatField(min_value=0, max_value=10)
    model_field = models.FloatField(validators=[MinValueValidator(0.5), MaxValueValidator(20)])
    bounds_from_model(field, model_field)
    assert (field.min_value, field.max_value) == (0.5, 10)  # the model's min, the form's max
    assert (field.widget.attrs["min"], field.widget.attrs["max"]) == (0.5, 10)
    with pytest.raises(forms.ValidationError):
        field.clean("0.4")
    assert field.clean("0.5") == 0.5


def test_the_description_says_participants_read_it(signed_in, researcher):
    hint = "first page, before they consent; keep notes for your team elsewhere"
    assert hint in signed_in.get(reverse("studies:create")).content.decode()
    study = make_study(researcher, pairs=1)
    assert hint in signed_in.get(reverse("studies:edit", args=[study.slug])).content.decode()


def test_a_participants_trials_number_the_checks_within_the_study(signed_in, researcher):
    make_study(researcher, pairs=1, checks=(None, None))  # ids 1 and 2 go to another study
    study = make_study(researcher, pairs=2, checks=(2, 4))
    session = run_participant(study, "numbered")
    page = signed_in.get(reverse("studies:session", args=[study.slug, session.pk])).content.decode()
    assert "Attention check 1" in page and "Attention check 2" in page
    assert "Attention check 3" not in page and "Attention check 4" not in page
    assert "Answer as sent" in page
