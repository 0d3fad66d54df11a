"""Qualification rounds: order, pass and fail, retries and delays, manual decisions, re-scoring."""

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from annotation.models import Qualification
from annotation.services import QueueError, assignment_next
from annotation.services.quality import (
    QualityError,
    annotator_decide,
    attempt_answer,
    attempt_review,
    attempt_start,
    gold_from_reference,
    gold_set,
)
from annotation.tests.quality_setup import GOLD_A, GOLD_B, qualify, with_rounds
from core.models import AuditEntry

pytestmark = pytest.mark.django_db


def _state(project, user):
    return Qualification.objects.get(project=project, annotator=user)


def test_passing_both_rounds_qualifies_and_opens_real_work(
    project, make_items, members, researcher
):
    with_rounds(project, make_items, researcher)
    make_items(project, 2)
    (anna,) = members(1)
    with pytest.raises(QueueError) as refused:
        assignment_next(project=project, annotator=anna)
    assert refused.value.status == 403
    qualify(project, anna)
    q = _state(project, anna)
    assert (q.state, q.rounds_passed) == ("qualified", 2)
    assert assignment_next(project=project, annotator=anna) is not None


def test_rounds_must_be_taken_in_order(project, make_items, members, researcher):
    with_rounds(project, make_items, researcher)
    (anna,) = members(1)
    with pytest.raises(QualityError) as refused:
        attempt_start(project=project, annotator=anna, position=2)
    assert refused.value.status == 409 and "round 1 first" in refused.value.message
    attempt_start(project=project, annotator=anna, position=1)
    with pytest.raises(QualityError):
        attempt_answer(project=project, annotator=anna, position=2, index=1, labels=GOLD_B)


def test_failing_without_retries_eliminates(project, make_items, members, researcher):
    with_rounds(project, make_items, researcher, max_attempts=1)
    (anna,) = members(1)
    attempt_start(project=project, annotator=anna, position=1)
    attempt = attempt_answer(project=project, annotator=anna, position=1, index=1, labels=[[], []])
    assert attempt.passed is False and attempt.f1 == 0.0
    assert _state(project, anna).state == "eliminated"
    with pytest.raises(QualityError) as refused:
        attempt_start(project=project, annotator=anna, position=1)
    assert refused.value.status == 403


def test_retries_wait_for_the_delay_then_run_out(project, make_items, members, researcher):
    with_rounds(project, make_items, researcher, max_attempts=2, retry_delay_minutes=30)
    (anna,) = members(1)
    start = timezone.now()
    attempt_start(project=project, annotator=anna, position=1, now=start)
    attempt_answer(project=project, annotator=anna, position=1, index=1, labels=[[], []], now=start)
    assert _state(project, anna).state == "started"
    with pytest.raises(QualityError) as early:
        attempt_start(
            project=project, annotator=anna, position=1, now=start + timedelta(minutes=29)
        )
    assert early.value.status == 429 and "again after" in early.value.message
    later = start + timedelta(minutes=31)
    second = attempt_start(project=project, annotator=anna, position=1, now=later)
    assert second.number == 2
    attempt_answer(project=project, annotator=anna, position=1, index=1, labels=[[], []], now=later)
    assert _state(project, anna).state == "eliminated"
    with pytest.raises(QualityError) as spent:
        attempt_start(project=project, annotator=anna, position=1, now=later + timedelta(days=1))
    assert spent.value.status == 403


def test_a_round_cannot_be_answered_twice_or_retaken_once_passed(
    project, make_items, members, researcher
):
    with_rounds(project, make_items, researcher)
    (anna,) = members(1)
    qualify(project, anna)
    with pytest.raises(QualityError) as again:
        attempt_start(project=project, annotator=anna, position=1)
    assert again.value.status == 409


def test_gold_is_shown_after_a_round_only_when_turned_on(project, make_items, members, researcher):
    with_rounds(project, make_items, researcher)
    (anna,) = members(1)
    qualify(project, anna)
    with pytest.raises(QualityError) as hidden:
        attempt_review(project=project, annotator=anna, position=1)
    assert hidden.value.status == 403
    project.quality.show_gold_after_round = True
    project.quality.save()
    attempt, golds = attempt_review(project=project, annotator=anna, position=1)
    assert golds[0].labels == GOLD_A and golds[0].explanation


def test_manual_decisions_need_a_reason_and_are_logged(project, make_items, members, researcher):
    with_rounds(project, make_items, researcher)
    (anna,) = members(1)
    with pytest.raises(ValidationError):
        annotator_decide(
            project=project, annotator=anna, action="qualify", reason=" ", actor=researcher
        )
    annotator_decide(
        project=project, annotator=anna, action="qualify", reason="Known expert", actor=researcher
    )
    assert _state(project, anna).state == "qualified"
    annotator_decide(
        project=project, annotator=anna, action="disqualify", reason="Left", actor=researcher
    )
    assert _state(project, anna).state == "eliminated"
    logged = AuditEntry.objects.filter(action__startswith="annotation.annotator_").values_list(
        "reason", flat=True
    )
    assert set(logged) == {"Known expert", "Left"}


def test_a_gold_edit_rescores_attempts_and_logs_it(project, make_items, members, researcher):
    setup = with_rounds(project, make_items, researcher)
    (anna,) = members(1)
    attempt_start(project=project, annotator=anna, position=1)
    attempt = attempt_answer(project=project, annotator=anna, position=1, index=1, labels=[[], []])
    assert attempt.passed is False
    gold = setup["gold"][0]
    gold_set(project=project, item=gold.item, labels=[[], []], actor=researcher)
    attempt.refresh_from_db()
    assert attempt.passed is True and attempt.f1 == 1.0
    entry = AuditEntry.objects.get(action="annotation.attempt_rescored")
    assert entry.details["outcome_changed"] is True and entry.details["annotator"] == anna.username


def test_reference_labels_can_be_marked_as_gold(project, make_items, researcher):
    make_items(project, 3, reference=[["value_error"], []])
    assert gold_from_reference(project=project, actor=researcher) == 3
    assert project.gold_items.filter(source="reference").count() == 3


def test_gold_with_unknown_categories_is_refused(project, make_items, researcher):
    (item,) = make_items(project, 1)
    with pytest.raises(ValidationError):
        gold_set(project=project, item=item, labels=[["bogus"], []], actor=researcher)


def test_the_next_attempt_opens_on_the_minute_the_pages_state(
    project, make_items, members, researcher
):
    from annotation.models import Qualification
    from annotation.selectors.attempts import retry_at, round_attempts

    rounds = with_rounds(project, make_items, researcher, max_attempts=2, retry_delay_minutes=1)
    (anna,) = members(1)
    start = (timezone.now() + timedelta(days=1)).replace(
        hour=15, minute=53, second=6, microsecond=250
    )
    attempt_start(project=project, annotator=anna, position=1, now=start)
    attempt_answer(project=project, annotator=anna, position=1, index=1, labels=[[], []], now=start)
    qualification = Qualification.objects.get(project=project, annotator=anna)
    round_ = rounds["rounds"][0]
    _used, opens = retry_at(
        qualification, round_, project.quality, attempts=round_attempts(qualification, round_)
    )
    assert opens == start.replace(minute=55, second=0, microsecond=0)  # shown as "15:55"
    with pytest.raises(QualityError):
        attempt_start(project=project, annotator=anna, position=1, now=opens - timedelta(seconds=1))
    assert attempt_start(project=project, annotator=anna, position=1, now=opens).number == 2


def test_without_a_retry_delay_the_next_attempt_opens_straight_away(
    project, make_items, members, researcher
):
    with_rounds(project, make_items, researcher, max_attempts=2, retry_delay_minutes=0)
    (anna,) = members(1)
    attempt_start(project=project, annotator=anna, position=1)
    attempt_answer(project=project, annotator=anna, position=1, index=1, labels=[[], []])
    assert attempt_start(project=project, annotator=anna, position=1).number == 2
