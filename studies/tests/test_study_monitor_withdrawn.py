"""The monitor page's row of a withdrawn participant: when they withdrew, not answers in progress."""

import re
from datetime import UTC, datetime

import pytest
from django.urls import reverse

from studies.models import Study
from studies.services.sessions import Identity, response_record, session_start, session_withdraw
from studies.tests.factories import answer_for, make_study

pytestmark = pytest.mark.django_db


def _answer(study, pid, count):
    session = session_start(study=study, identity=Identity("prolific", pid, {})).session
    for trial in session.trials.select_related("question", "attention_check").order_by("position")[
        :count
    ]:
        response_record(token=session.token, position=trial.position, answer=answer_for(trial))
    session.refresh_from_db()
    return session


def _row(page: str, pid: str) -> str:
    rows = [r for r in re.findall(r"<tr>.*?</tr>", page, flags=re.S) if f">{pid}</td>" in r]
    assert len(rows) == 1, pid
    return rows[0]


@pytest.mark.parametrize("keep", [False, True])
def test_a_withdrawn_row_says_withdrawn_and_when_instead_of_its_answers(
    signed_in, researcher, keep
):
    study = make_study(researcher, pairs=3)
    Study.objects.filter(pk=study.pk).update(keep_answers_on_withdrawal=keep)
    study.refresh_from_db()
    active = _answer(study, "still-here", 3)
    gone = _answer(study, "gone", 3)
    session_withdraw(token=gone.token, now=datetime(2026, 11, 30, 9, 41, tzinfo=UTC))

    page = signed_in.get(reverse("studies:detail", args=[study.slug])).content.decode()
    assert f"3 / {active.trial_count}" in _row(page, "still-here")
    row = _row(page, "gone")
    assert "withdrawn" in row and "2026-11-30 09:41" in row
    assert f"3 / {gone.trial_count}" not in row
    assert ("answers deleted" in row) is not keep

    detail = signed_in.get(reverse("studies:session", args=[study.slug, gone.pk])).content
    assert "Withdrawn 2026-11-30 09:41:00, after 3 of" in detail.decode()
    # Its trials say what became of the answers, not that they were never given.
    rows = detail.decode()
    assert (rows.count("answer deleted on withdrawal") == 3) is not keep
    assert rows.count("shown, not answered") == 1  # the trial they left at
