"""Setting up a study: settings, pairs, video, attention checks and the status workflow."""

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile

from core.models import AuditEntry
from studies.models import AnswerType, AttentionCheck, ParticipantSession, Question, Study
from studies.selectors.study import complete_pair_ids
from studies.services import study as setup
from studies.services import study_create
from studies.services.sessions import Identity, session_start
from studies.tests.factories import make_chart_set, make_study, png_bytes

pytestmark = pytest.mark.django_db

MP4_HEAD = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom" + b"\x00" * 64


def draft(researcher, **kw):
    return make_study(researcher, status=Study.Status.DRAFT, **kw)


def test_a_new_study_gets_a_seed_and_sensible_defaults(researcher):
    study = study_create(owner=researcher, title="Axes")
    assert study.status == "draft" and study.min_gap == 1 and study.time_limit_minutes == 60
    assert 0 <= study.seed < 2**31 and study.platform == "prolific"


def test_settings_change_through_the_service_and_are_audited(researcher):
    study = draft(researcher)
    setup.study_update(
        study=study,
        actor=researcher,
        consent_text="New consent",
        time_limit_minutes=30,
        completion_url="https://app.prolific.com/submissions/complete?cc={code}",
        max_attention_failures=1,
    )
    study.refresh_from_db()
    assert study.time_limit_minutes == 30 and study.max_attention_failures == 1
    assert AuditEntry.objects.filter(action="study.update").exists()


@pytest.mark.parametrize(
    "changes,field",
    [
        ({"completion_url": "javascript:alert(1)"}, "completion_url"),
        (
            {"completion_url": "http://app.prolific.com/submissions/complete?cc={code}"},
            "completion_url",
        ),
        ({"completion_url": "https:///no-host"}, "completion_url"),
        ({"time_limit_minutes": 0}, "time_limit_minutes"),
        ({"min_gap": 0}, "min_gap"),
        ({"title": "  "}, "title"),
        ({"owner": None}, "owner"),
    ],
)
def test_bad_settings_are_refused_with_the_field_named(researcher, changes, field):
    study = draft(researcher)
    with pytest.raises(ValidationError) as info:
        setup.study_update(study=study, actor=researcher, **changes)
    assert field in info.value.message_dict


def test_the_design_locks_once_real_participants_started(researcher):
    study = make_study(researcher)
    session_start(study=study, identity=Identity("prolific", "P1", {"PROLIFIC_PID": "P1"}))
    with pytest.raises(ValidationError, match="already started"):
        setup.study_update(study=study, actor=researcher, seed=5)
    with pytest.raises(ValidationError, match="already started"):
        setup.study_pairs_set(
            study=study, chart_set=study.chart_set, question_ids=[], actor=researcher
        )
    with pytest.raises(ValidationError, match="already started"):
        setup.attention_check_delete(check=study.attention_checks.first(), actor=researcher)
    # Texts can still be corrected.
    setup.study_update(study=study, actor=researcher, debrief_text="Thanks!")


def test_pairs_are_chosen_from_a_chart_set(researcher):
    study = study_create(owner=researcher, title="Pairs")
    chart_set = make_chart_set(researcher, pairs=4)
    ids = list(chart_set.questions.values_list("id", flat=True))
    setup.study_pairs_set(study=study, chart_set=chart_set, question_ids=ids[:2], actor=researcher)
    assert set(study.pairs.values_list("id", flat=True)) == set(ids[:2])
    assert study.chart_set == chart_set
    setup.study_pairs_set(study=study, chart_set=chart_set, question_ids=ids, actor=researcher)
    assert study.study_pairs.count() == 4


def test_pairs_from_another_set_or_without_both_charts_are_refused(researcher):
    study = study_create(owner=researcher, title="Pairs")
    mine, other = make_chart_set(researcher, pairs=2), make_chart_set(researcher, pairs=2)
    with pytest.raises(ValidationError, match="not in the chart set"):
        setup.study_pairs_set(
            study=study, chart_set=mine, question_ids=[other.questions.first().id], actor=researcher
        )
    broken = mine.questions.first()
    broken.charts.filter(version=2).delete()
    with pytest.raises(ValidationError, match="lack a chart"):
        setup.study_pairs_set(
            study=study, chart_set=mine, question_ids=[broken.id], actor=researcher
        )


def test_a_pair_is_complete_with_both_charts_read_one_way_everywhere(researcher):
    chart_set = make_chart_set(researcher, pairs=3)
    first, second, third = chart_set.questions.order_by("code")
    first.charts.filter(version=2).delete()
    second.charts.filter(version=1).delete()
    questions = Question.objects.filter(chart_set=chart_set)
    assert list(questions.complete()) == [third]
    assert complete_pair_ids(chart_set) == [third.id]
    assert [q.has_both_charts for q in questions.order_by("code")] == [False, False, True]


def test_it_cannot_go_live_without_pairs_texts_or_a_completion_code(researcher):
    study = study_create(owner=researcher, title="Empty")
    with pytest.raises(ValidationError) as info:
        setup.study_status_change(study=study, status="live", actor=researcher)
    problems = " ".join(info.value.message_dict["status"])
    assert "at least one chart pair" in problems
    assert (
        "consent text" in problems and "instructions" in problems and "completion code" in problems
    )
    study.refresh_from_db()
    assert study.status == "draft"


def test_the_gap_must_fit_the_number_of_pairs(researcher):
    study = draft(researcher, pairs=2, min_gap=2)
    with pytest.raises(ValidationError, match="needs at least 3 pairs"):
        setup.study_status_change(study=study, status="pilot", actor=researcher)


def test_status_follows_the_workflow(researcher):
    study = draft(researcher)
    for status in ("pilot", "live", "paused", "live", "closed"):
        setup.study_status_change(study=study, status=status, actor=researcher)
        assert Study.objects.get(pk=study.pk).status == status
    with pytest.raises(ValidationError, match="cannot become"):
        setup.study_status_change(study=study, status="live", actor=researcher)
    assert AuditEntry.objects.filter(action="study.status").count() == 5


def test_draft_cannot_jump_to_paused(researcher):
    study = draft(researcher)
    with pytest.raises(ValidationError, match="cannot become paused"):
        setup.study_status_change(study=study, status="paused", actor=researcher)


def test_an_instructions_video_is_checked_and_stored_under_a_generated_name(researcher):
    study = draft(researcher)
    upload = SimpleUploadedFile("../../etc/intro video.mp4", MP4_HEAD, content_type="video/mp4")
    setup.study_video_set(study=study, upload=upload, actor=researcher)
    assert study.instructions_video.name.startswith("study_videos/")
    assert (
        study.instructions_video.name.endswith(".mp4")
        and "etc" not in study.instructions_video.name
    )
    webm = SimpleUploadedFile("v.webm", b"\x1a\x45\xdf\xa3" + b"\x00" * 40)
    setup.study_video_set(study=study, upload=webm, actor=researcher)
    assert study.instructions_video.name.endswith(".webm")
    setup.study_video_clear(study=study, actor=researcher)
    assert not Study.objects.get(pk=study.pk).instructions_video


def test_a_file_that_is_not_a_video_or_too_large_is_refused(researcher, settings):
    study = draft(researcher)
    fake = SimpleUploadedFile("intro.mp4", b"<html>not a video</html>", content_type="video/mp4")
    with pytest.raises(ValidationError, match="not a video"):
        setup.study_video_set(study=study, upload=fake, actor=researcher)
    settings.CHARTROOM_MAX_VIDEO_BYTES = 50
    big = SimpleUploadedFile("intro.mp4", MP4_HEAD)
    with pytest.raises(ValidationError, match="limit"):
        setup.study_video_set(study=study, upload=big, actor=researcher)
    assert not Study.objects.get(pk=study.pk).instructions_video


def test_attention_checks_of_both_kinds_are_authored(researcher):
    study = draft(researcher, checks=())
    instructed = setup.attention_check_create(
        study=study,
        actor=researcher,
        kind="instructed",
        prompt="Select 'Strongly agree' for this item.",
        answer_type=AnswerType.MULTIPLE_CHOICE,
        options=["Strongly disagree", " Strongly   agree "],
        answer_key="Strongly agree",
        position=3,
    )
    assert instructed.options == ["Strongly disagree", "Strongly agree"]
    sanity = setup.attention_check_create(
        study=study,
        actor=researcher,
        kind="sanity",
        prompt="How many apples?",
        answer_type=AnswerType.FREE_TEXT,
        answer_key="10",
        image=png_bytes(),
    )
    assert sanity.image.name.startswith("charts/") and sanity.width == 120
    assert study.attention_checks.count() == 2


@pytest.mark.parametrize(
    "changes,field",
    [
        ({"options": ["Only one"]}, "options"),
        ({"answer_key": "Maybe"}, "answer_key"),
        ({"prompt": " "}, "prompt"),
        ({"kind": "sanity"}, "image"),
        ({"position": 0}, "position"),
        ({"position": 999}, "position"),  # beyond the last trial, as the page once let through
        ({"answer_type": AnswerType.FREE_TEXT, "answer_key": "lots"}, "answer_key"),
    ],
)
def test_broken_attention_checks_are_refused(researcher, changes, field):
    study = draft(researcher, checks=())
    data = {
        "kind": "instructed",
        "prompt": "Pick B",
        "answer_type": AnswerType.MULTIPLE_CHOICE,
        "options": ["A", "B"],
        "answer_key": "B",
    } | changes
    with pytest.raises(ValidationError) as info:
        setup.attention_check_create(study=study, actor=researcher, **data)
    assert field in info.value.message_dict
    assert not AttentionCheck.objects.exists()


def test_a_check_may_go_anywhere_up_to_the_last_trial_it_makes(researcher):
    study = draft(researcher, checks=())
    last = 2 * study.study_pairs.count() + 1
    data = {"kind": "instructed", "prompt": "Pick B", "answer_type": AnswerType.MULTIPLE_CHOICE,
            "options": ["A", "B"], "answer_key": "B"}  # fmt: skip
    with pytest.raises(ValidationError, match=f"choose a position from 1 to {last}"):
        setup.attention_check_create(study=study, actor=researcher, position=last + 1, **data)
    check = setup.attention_check_create(study=study, actor=researcher, position=last, **data)
    assert check.position == last


def test_a_sanity_chart_that_is_not_an_image_is_refused(researcher):
    study = draft(researcher, checks=())
    with pytest.raises(ValidationError) as info:
        setup.attention_check_create(
            study=study,
            actor=researcher,
            kind="sanity",
            prompt="How many?",
            answer_type=AnswerType.FREE_TEXT,
            answer_key="3",
            image=b"GIF89a-not-really",
        )
    assert "image" in info.value.message_dict


def test_test_sessions_can_be_cleared_so_the_design_can_change(researcher):
    study = make_study(researcher, status=Study.Status.PILOT)
    session_start(study=study, identity=Identity("prolific", "P1", {"PROLIFIC_PID": "P1"}))
    session_start(study=study, identity=Identity("prolific"), preview=True)
    check = study.attention_checks.first()
    with pytest.raises(ValidationError, match="Clear the test sessions"):
        setup.attention_check_delete(check=check, actor=researcher)
    assert setup.study_test_sessions_clear(study=study, actor=researcher) == 2
    setup.attention_check_delete(check=check, actor=researcher)
    assert not ParticipantSession.objects.exists()


def test_a_plain_http_completion_url_is_refused_with_the_reason(researcher):
    study = draft(researcher)
    with pytest.raises(ValidationError) as info:
        setup.study_update(
            study=study, actor=researcher, completion_url="http://example.org/done?cc={code}"
        )
    assert "https://" in info.value.message_dict["completion_url"][0]
    study.refresh_from_db()
    assert study.completion_url == ""


def test_a_target_of_more_than_a_million_participants_is_refused_on_the_page_and_the_api(
    client, researcher, researcher_api
):
    from studies.tests.factories import make_study as _make

    study = _make(researcher, pairs=2, status="draft")
    refused = researcher_api.patch(
        f"/api/v1/studies/{study.slug}/", {"target_participants": 9223372036854775807},
        format="json",
    )  # fmt: skip
    assert refused.status_code == 400
    assert "1000000" in refused.json()["errors"]["target_participants"][0]
    client.force_login(researcher)
    page = client.get(f"/studies/study/{study.slug}/edit/").content.decode()
    assert 'max="1000000"' in page
