"""Deletions on the researcher's pages are confirmed on a page of their own (GET shows what goes
and what follows, POST deletes), so they work without JavaScript; what the models protect is
refused with a message that says why."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils.html import escape

from studies.models import (
    AttentionCheck,
    ChartSet,
    ParticipantSession,
    Question,
    Response,
    Study,
)
from studies.services.sessions import Identity, response_record, session_start
from studies.tests.factories import answer_for, make_chart_set, make_study

pytestmark = pytest.mark.django_db


def _preview_answering_every_check(study):
    session = session_start(study=study, identity=Identity("prolific"), preview=True).session
    for trial in session.trials.select_related("question", "attention_check").order_by("position"):
        response_record(token=session.token, position=trial.position, answer=answer_for(trial))
    return session


def test_deleting_a_check_asks_first_on_a_page_and_deletes_on_post(signed_in, researcher):
    make_study(researcher, checks=(None, None))  # another study's checks come first
    study = make_study(researcher, status=Study.Status.DRAFT, checks=(None,))
    check = study.attention_checks.get()
    assert check.pk > 1
    url = reverse("studies:check-delete", args=[study.slug, check.pk])

    checks_page = signed_in.get(reverse("studies:checks", args=[study.slug])).content.decode()
    assert f'href="{url}"' in checks_page and f'action="{url}"' not in checks_page

    page = signed_in.get(url)
    text = page.content.decode()
    assert page.status_code == 200 and AttentionCheck.objects.filter(pk=check.pk).exists()
    # Numbered within the study, as the checks list and the translations number it.
    assert "Delete attention check 1?" in text and escape(check.prompt) in text
    assert '<td class="num">1</td>' in checks_page
    assert "no session has been shown it yet" in text and 'id="confirm-delete"' in text
    assert f'href="{reverse("studies:checks", args=[study.slug])}"' in text  # cancel

    response = signed_in.post(url)
    assert response["Location"] == reverse("studies:checks", args=[study.slug])
    assert not AttentionCheck.objects.filter(pk=check.pk).exists()


def test_a_check_pilot_or_preview_participants_answered_is_not_deleted(signed_in, researcher):
    study = make_study(researcher, status=Study.Status.PILOT, checks=(None,))
    check = study.attention_checks.get()
    _preview_answering_every_check(study)
    url = reverse("studies:check-delete", args=[study.slug, check.pk])

    page = signed_in.get(url).content.decode()
    assert "1 pilot or preview session was shown this check (1 answered it)" in page
    assert 'id="confirm-delete"' not in page

    refused = signed_in.post(url)
    assert (
        refused.status_code == 409 and "would lose what they recorded" in refused.content.decode()
    )
    assert AttentionCheck.objects.filter(pk=check.pk).exists()
    assert check.responses.count() == 1

    # Deleting the test sessions is the researcher's own, confirmed choice; then the check can go.
    signed_in.post(reverse("studies:clear-tests", args=[study.slug]))
    assert signed_in.post(url).status_code == 302
    assert not AttentionCheck.objects.filter(pk=check.pk).exists()


def test_a_check_of_a_study_live_participants_started_cannot_be_deleted(signed_in, researcher):
    study = make_study(researcher, checks=(None,))
    session_start(study=study, identity=Identity("prolific", "p1", {}))
    check = study.attention_checks.get()
    url = reverse("studies:check-delete", args=[study.slug, check.pk])
    assert "Participants have already started" in signed_in.get(url).content.decode()
    assert signed_in.post(url).status_code == 409
    assert AttentionCheck.objects.filter(pk=check.pk).exists()


def test_deleting_test_sessions_shows_what_goes_then_deletes_on_post(signed_in, researcher):
    study = make_study(researcher, status=Study.Status.PILOT, checks=(None,))
    _preview_answering_every_check(study)
    session_start(study=study, identity=Identity("prolific", "pilot-1", {}))
    Study.objects.filter(pk=study.pk).update(status=Study.Status.LIVE)
    session_start(study=study, identity=Identity("prolific", "live-1", {}))
    url = reverse("studies:clear-tests", args=[study.slug])

    overview = signed_in.get(reverse("studies:detail", args=[study.slug])).content.decode()
    assert f'href="{url}"' in overview and f'action="{url}"' not in overview
    page = signed_in.get(url).content.decode()
    assert ParticipantSession.objects.filter(study=study).count() == 3
    assert '<th scope="row">Pilot sessions</th><td>1</td>' in page
    assert '<th scope="row">Preview sessions</th><td>1</td>' in page
    answers = Response.objects.filter(session__is_preview=True).count()  # the preview's every trial
    assert answers > 0
    assert f'<th scope="row">Their answers</th><td>{answers}</td>' in page
    assert "Live participants and their answers are not touched." in page

    assert signed_in.post(url)["Location"] == reverse("studies:detail", args=[study.slug])
    assert list(
        ParticipantSession.objects.filter(study=study).values_list("external_id", flat=True)
    ) == ["live-1"]
    assert "no pilot or preview sessions" in signed_in.get(url).content.decode()


def test_deleting_a_chart_set_or_a_pair_asks_first_and_refuses_what_a_study_uses(
    signed_in, researcher
):
    unused = make_chart_set(researcher, pairs=2)
    used = make_study(researcher, status=Study.Status.DRAFT).chart_set
    set_url = reverse("studies:chartset-delete", args=[unused.slug])
    detail = signed_in.get(reverse("studies:chartset-detail", args=[unused.slug])).content.decode()
    assert f'href="{set_url}"' in detail and "data-confirm" not in detail

    page = signed_in.get(set_url).content.decode()
    assert "Its 2 pairs, their questions and 4 chart images are deleted for good." in page
    assert ChartSet.objects.filter(pk=unused.pk).exists()

    code = used.questions.order_by("code").first().code
    pair_url = reverse("studies:pair-delete", args=[used.slug, code])
    pair_page = signed_in.get(reverse("studies:pair-detail", args=[used.slug, code])).content
    assert f'href="{pair_url}"'.encode() in pair_page and b"data-confirm" not in pair_page
    assert f"{code} is used by a study" in signed_in.get(pair_url).content.decode()
    assert signed_in.post(pair_url).status_code == 409
    used_url = reverse("studies:chartset-delete", args=[used.slug])
    assert "used by a study" in signed_in.get(used_url).content.decode()
    assert signed_in.post(used_url).status_code == 409
    assert Question.objects.filter(chart_set=used, code=code).exists()

    free = unused.questions.order_by("code").first().code
    free_url = reverse("studies:pair-delete", args=[unused.slug, free])
    assert "both charts" in signed_in.get(free_url).content.decode()
    assert signed_in.post(free_url).status_code == 302
    assert not Question.objects.filter(chart_set=unused, code=free).exists()
    assert signed_in.post(set_url)["Location"] == reverse("studies:library")
    assert not ChartSet.objects.filter(pk=unused.pk).exists()


def test_removing_the_instructions_video_asks_first_and_removes_on_post(signed_in, researcher):
    study = make_study(researcher, status=Study.Status.DRAFT)
    edit = reverse("studies:edit", args=[study.slug])
    mp4 = SimpleUploadedFile("intro.mp4", b"\x00\x00\x00\x18ftypmp42" + b"\x00" * 64)
    signed_in.post(edit, {"action": "video", "video": mp4})
    url = reverse("studies:video-remove", args=[study.slug])
    assert f'href="{url}"' in signed_in.get(edit).content.decode()

    page = signed_in.get(url).content.decode()
    assert "Remove the instructions video?" in page and 'id="confirm-delete"' in page
    study.refresh_from_db()
    assert study.instructions_video
    # A settings page loaded before the confirmation page existed posts its old button here.
    assert signed_in.post(edit, {"action": "remove-video"})["Location"] == url
    study.refresh_from_db()
    assert study.instructions_video

    assert signed_in.post(url)["Location"] == edit
    study.refresh_from_db()
    assert not study.instructions_video
    assert "This study has no instructions video." in signed_in.get(url).content.decode()
