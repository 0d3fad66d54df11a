"""The study's sessions in the API say what the pages say: how many answers are stored (none
once a withdrawal deleted them), when a participant withdrew, and "pilot 1" / "preview 2" / "7"."""

from datetime import UTC, datetime

import pytest
import yaml

from studies.models import Study
from studies.services.sessions import (
    Identity,
    response_record,
    session_decline,
    session_start,
    session_withdraw,
)
from studies.tests.factories import answer_for, make_study

pytestmark = pytest.mark.django_db

WHEN = datetime(2026, 11, 30, 9, 41, tzinfo=UTC)


def _answer(study, pid, count, *, preview=False):
    session = session_start(
        study=study, identity=Identity("prolific", pid, {}), preview=preview
    ).session
    trials = session.trials.select_related("question", "attention_check").order_by("position")
    for trial in trials[:count]:
        response_record(token=session.token, position=trial.position, answer=answer_for(trial))
    session.refresh_from_db()
    return session


def _rows(researcher_api, study) -> dict:
    body = researcher_api.get(f"/api/v1/studies/{study.slug}/sessions/").json()
    return {row["id"]: row for row in body["results"]}


@pytest.mark.parametrize("keep", [False, True])
def test_a_withdrawn_session_counts_only_the_answers_still_stored(researcher_api, researcher, keep):
    study = make_study(researcher, pairs=3)
    Study.objects.filter(pk=study.pk).update(keep_answers_on_withdrawal=keep)
    study.refresh_from_db()
    active = _answer(study, "still-here", 3)
    gone = _answer(study, "gone", 3)
    session_withdraw(token=gone.token, now=WHEN)

    rows = _rows(researcher_api, study)
    assert rows[active.pk]["answered"] == 3 and rows[active.pk]["withdrawn_at"] is None
    row = rows[gone.pk]
    assert row["status"] == "withdrawn" and row["answers_deleted"] is not keep
    assert row["answered"] == (3 if keep else 0) == gone.responses.count()
    assert row["withdrawn_at"] == "2026-11-30T09:41:00Z"


def test_each_session_carries_the_label_the_pages_show(researcher_api, researcher):
    study = make_study(researcher, status=Study.Status.PILOT)
    pilot = _answer(study, "pilot-1", 0)
    preview = _answer(study, "", 0, preview=True)
    Study.objects.filter(pk=study.pk).update(status=Study.Status.LIVE)
    study.refresh_from_db()
    live = _answer(study, "live-1", 0)
    declined = session_decline(study=study)

    rows = _rows(researcher_api, study)
    labels = {pk: (rows[pk]["number"], rows[pk]["label"]) for pk in rows}
    assert labels == {
        pilot.pk: (1, "pilot 1"),
        preview.pk: (2, "preview 2"),
        live.pk: (1, "1"),
        declined.pk: (None, None),
    }
    assert rows[pilot.pk]["is_pilot"] and rows[preview.pk]["is_preview"]  # still there


def test_the_schema_explains_the_session_fields(client):
    spec = yaml.safe_load(client.get("/api/schema/").content)
    fields = spec["components"]["schemas"]["Session"]["properties"]
    assert "deleted on withdrawal" in fields["answered"]["description"]
    assert "`pilot 1`" in fields["label"]["description"] and fields["label"]["nullable"]
    assert "withdrew" in fields["withdrawn_at"]["description"]
    assert "description" in fields["number"]
