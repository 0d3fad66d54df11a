"""Exclusion rules, the funnel and researcher overrides."""

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from core.models import AuditEntry
from studies.models import ParticipantSession, Response
from studies.selectors.monitor import study_monitor
from studies.services.results.exclusion import exclusion_override_set, study_exclusion
from studies.services.results.simulate import study_simulate
from studies.tests.factories import make_study

pytestmark = pytest.mark.django_db


@pytest.fixture
def study(researcher):
    study = make_study(researcher, pairs=3, max_attention_failures=1, min_seconds_per_trial=3)
    study_simulate(study=study, participants=8, seed=11, attention_fail_rate=0, timeout_rate=0)
    return study


def _sessions(study):
    return list(ParticipantSession.objects.filter(study=study).order_by("number"))


def _decision(study, session):
    return next(d for d in study_exclusion(study).decisions if d.facts.id == session.pk)


def test_completed_attentive_unhurried_participants_are_included(study):
    exclusion = study_exclusion(study)
    assert exclusion.funnel()["took_part"] == 8
    assert exclusion.funnel()["included"] == 8


def test_attention_failures_over_the_allowed_number_exclude(study):
    a, b = _sessions(study)[:2]
    ParticipantSession.objects.filter(pk=a.pk).update(attention_failures=1)  # allowed
    ParticipantSession.objects.filter(pk=b.pk).update(attention_failures=2)
    assert _decision(study, a).included
    decision = _decision(study, b)
    assert not decision.included and decision.main_reason == "attention"
    assert "failed 2 attention checks (allowed 1)" in decision.reason_text


def test_a_median_time_per_chart_below_the_minimum_excludes(study):
    session = _sessions(study)[0]
    Response.objects.filter(session=session).update(server_ms=1200)
    decision = _decision(study, session)
    assert decision.main_reason == "too_fast" and "median 1.2 s per chart" in decision.reason_text


def test_incomplete_timed_out_withdrawn_and_test_sessions_are_excluded(study):
    a, b, c, d, e = _sessions(study)[:5]
    ParticipantSession.objects.filter(pk=a.pk).update(current_position=2)
    ParticipantSession.objects.filter(pk=b.pk).update(status="timed_out")
    ParticipantSession.objects.filter(pk=c.pk).update(status="withdrawn")
    ParticipantSession.objects.filter(pk=d.pk).update(is_pilot=True)
    ParticipantSession.objects.filter(pk=e.pk).update(
        status="in_progress", deadline=timezone.now() + timedelta(hours=1)
    )
    funnel = study_exclusion(study).funnel()
    assert funnel["took_part"] == 7 and funnel["test_sessions"] == 1
    assert funnel["excluded"] == 4 and funnel["included"] == 3
    reasons = {r["code"]: r["n"] for r in funnel["by_reason"]}
    assert reasons == {"incomplete": 1, "timed_out": 1, "withdrawn": 1, "in_progress": 1}


def test_incomplete_sessions_are_kept_when_the_rule_is_off(study):
    study.exclude_incomplete = False
    study.save()
    session = _sessions(study)[0]
    ParticipantSession.objects.filter(pk=session.pk).update(current_position=2)
    assert _decision(study, session).included


def test_declined_sessions_are_counted_apart(study):
    ParticipantSession.objects.create(study=study, status="declined", platform="prolific")
    funnel = study_exclusion(study).funnel()
    assert funnel["declined"] == 1 and funnel["took_part"] == 8


def test_an_override_includes_or_excludes_against_the_rules_and_is_logged(study, researcher):
    a, b = _sessions(study)[:2]
    ParticipantSession.objects.filter(pk=a.pk).update(attention_failures=3)
    exclusion_override_set(
        study=study,
        session_id=a.pk,
        decision="include",
        reason="Misread item, reviewed",
        user=researcher,
    )
    exclusion_override_set(
        study=study, session_id=b.pk, decision="exclude", reason="Duplicate person", user=researcher
    )
    da, db = _decision(study, a), _decision(study, b)
    assert da.included and da.overridden and "included by the researcher" in da.reason_text
    assert not db.included and db.main_reason == "override"
    funnel = study_exclusion(study).funnel()
    assert funnel["included"] == 7
    exclusion_override_set(
        study=study,
        session_id=b.pk,
        decision="auto",
        reason="Not a duplicate after all",
        user=researcher,
    )
    assert _decision(study, b).included
    log = list(AuditEntry.objects.filter(action="study.exclusion_override").order_by("id"))
    assert [(e.details["before"], e.details["after"]) for e in log] == [
        ("auto", "include"),
        ("auto", "exclude"),
        ("exclude", "auto"),
    ]
    assert all(e.actor == researcher for e in log)


@pytest.mark.parametrize(
    ("decision", "reason", "field"),
    [("maybe", "x", "decision"), ("exclude", "  ", "reason")],
)
def test_bad_override_input_is_refused_with_a_message(study, researcher, decision, reason, field):
    session = _sessions(study)[0]
    with pytest.raises(ValidationError) as exc:
        exclusion_override_set(
            study=study, session_id=session.pk, decision=decision, reason=reason, user=researcher
        )
    assert field in exc.value.message_dict
    assert not AuditEntry.objects.exists()


def test_an_override_of_another_studys_session_is_refused(study, researcher):
    other = make_study(researcher, pairs=2)
    session = _sessions(study)[0]
    with pytest.raises(ValidationError, match="No such participant"):
        exclusion_override_set(
            study=other, session_id=session.pk, decision="exclude", reason="x", user=researcher
        )


def test_the_monitor_and_the_analysis_exclude_the_same_sessions(study):
    """Every kind of session, counted by the monitoring page and by the analysis."""
    ok, checks, fast, incomplete, timed_out, withdrawn, abandoned, pilot = _sessions(study)
    going = ParticipantSession.objects.create(
        study=study, status="in_progress", platform="prolific", trial_count=8, current_position=3
    )
    ParticipantSession.objects.create(study=study, status="declined", platform="prolific")
    preview = ParticipantSession.objects.create(study=study, is_preview=True, platform="prolific")
    ParticipantSession.objects.filter(pk=checks.pk).update(attention_failures=2)
    Response.objects.filter(session=fast).update(server_ms=1200)
    ParticipantSession.objects.filter(pk=incomplete.pk).update(current_position=2)
    for session, status in (
        (timed_out, "timed_out"),
        (withdrawn, "withdrawn"),
        (abandoned, "abandoned"),
    ):
        ParticipantSession.objects.filter(pk=session.pk).update(status=status)
    ParticipantSession.objects.filter(pk=pilot.pk).update(is_pilot=True)

    monitor = study_monitor(study)
    exclusion = study_exclusion(study)
    funnel = exclusion.funnel()
    assert monitor.counts["included"] == funnel["included"] == 1
    # The monitor counts finished sessions; the analysis also lists the one still going.
    assert monitor.counts["excluded"] == 6
    assert funnel["excluded"] == monitor.counts["excluded"] + monitor.counts["in_progress"]
    assert monitor.counts["declined"] == funnel["declined"] == 1
    assert sum(monitor.test_counts.values()) == funnel["test_sessions"] == 2
    by_reason = {r["code"]: r["n"] for r in funnel["by_reason"]}
    assert by_reason == {
        "attention": 1, "too_fast": 1, "incomplete": 1, "timed_out": 1, "withdrawn": 1,
        "abandoned": 1, "in_progress": 1,
    }  # fmt: skip
    rows = {row.session.pk: row.reasons for row in monitor.rows}
    for decision in exclusion.decisions:
        assert rows[decision.facts.id] == [text for _code, text in decision.reasons]
    assert rows[ok.pk] == [] and rows[going.pk] == ["still in progress"]
    assert rows[preview.pk] == ["pilot or preview session", "still in progress"]


@pytest.mark.parametrize("asked", [(True, False), (False, True), (True, True)])
def test_session_times_are_each_sessions_median_per_chart_and_fastest_trial(study, asked):
    import random
    import statistics

    from studies.selectors.results import session_times

    rng = random.Random(5)
    for response in Response.objects.filter(session__study=study):
        response.server_ms = rng.randint(200, 9000)
        response.save(update_fields=["server_ms"])
    first, second, third = _sessions(study)[:3]
    # An attention check counts for the fastest trial but not for the median per chart; an
    # answer without a time counts for neither; without chart answers there is no median.
    check = Response.objects.filter(session=first, chart__isnull=True).first()
    Response.objects.filter(pk=check.pk).update(server_ms=50)
    timeless = Response.objects.filter(session=third).order_by("position").first()
    Response.objects.filter(pk=timeless.pk).update(server_ms=None)
    Response.objects.filter(session=second, chart__isnull=False).delete()
    expected_medians, expected_fastest = {}, {}
    for session in _sessions(study):
        rows = list(Response.objects.filter(session=session, server_ms__isnull=False))
        charts = [r.server_ms / 1000 for r in rows if r.chart_id is not None]
        if charts:
            expected_medians[session.pk] = statistics.median(charts)
        if rows:
            expected_fastest[session.pk] = min(r.server_ms for r in rows)
    medians, fastest = session_times(study, medians=asked[0], fastest=asked[1])
    # PostgreSQL halves the sum of the two middle times before dividing by 1000: approx.
    assert medians == pytest.approx(expected_medians if asked[0] else {})
    assert fastest == (expected_fastest if asked[1] else {})
    assert second.pk not in expected_medians and expected_fastest[first.pk] == 50


def test_the_minimum_median_rule_decides_as_with_every_sessions_median(study):
    """The rules read medians only where counting says the minimum (3 s) could exclude: the
    decisions are those the exact medians give, at the boundary too."""
    from django.db import connection

    from studies import exclusion_rules
    from studies.selectors.results import rule_times, session_facts

    times = {
        0: [2000, 2000, 2000, 4000, 4000, 4000],  # median exactly 3.0 s: kept
        1: [2000, 2000, 2000, 3998, 4000, 4000],  # 2.999 s, half the times below: excluded
        2: [1000, 1000, 1000, 1000, 9000, 9000],  # 1.0 s: excluded
        3: [2999, 3000, 3000, 3000, 3000, 3000],  # 3.0 s, one time below: kept
        4: [2999, 2999, 2999, 9000, 9000, None],  # odd count, 2.999 s is the middle: excluded
    }
    sessions = _sessions(study)
    for index, values in times.items():
        charts = Response.objects.filter(session=sessions[index], chart__isnull=False)
        for response, ms in zip(charts.order_by("position"), values, strict=True):
            Response.objects.filter(pk=response.pk).update(server_ms=ms)
    exact = {f.id: f for f in session_facts(study, times=True)}
    for decision in study_exclusion(study).decisions:
        assert decision.reasons == exclusion_rules.rule_reasons(
            study, exact[decision.facts.id].rule_facts
        )
    codes = {d.facts.id: d.main_reason for d in study_exclusion(study).decisions}
    assert [codes[sessions[i].pk] for i in times] == [
        None,
        "too_fast",
        "too_fast",
        None,
        "too_fast",
    ]
    medians, _fastest = rule_times(study)
    assert medians[sessions[1].pk] == pytest.approx(2.999)
    assert all(medians[sid] == exact[sid].median_chart_seconds for sid in medians)
    if connection.vendor == "postgresql":  # elsewhere every median is taken
        assert sessions[3].pk not in medians and sessions[0].pk in medians


@pytest.mark.parametrize("status", ["withdrawn", "abandoned"])
def test_a_withdrawn_or_abandoned_session_cannot_be_included(study, researcher, status):
    session = _sessions(study)[0]
    ParticipantSession.objects.filter(pk=session.pk).update(status=status)
    with pytest.raises(ValidationError) as refused:
        exclusion_override_set(
            study=study, session_id=session.pk, decision="include", reason="r", user=researcher
        )
    message = refused.value.message_dict["decision"][0]
    assert ("withdrew" if status == "withdrawn" else "count them twice") in message
    assert not AuditEntry.objects.filter(action="study.exclusion_override").exists()
    # An include stored before the rule (or written around it) does not count either.
    from studies.models import ExclusionOverride

    ExclusionOverride.objects.create(
        session=session, decision="include", reason="old", decided_by=researcher
    )
    decision = _decision(study, session)
    assert not decision.included and decision.main_reason == status
    assert study_exclusion(study).funnel()["included"] == 7
    # Excluding it stays possible (it changes nothing, but is not an error).
    exclusion_override_set(
        study=study, session_id=session.pk, decision="exclude", reason="r", user=researcher
    )


def test_the_api_refuses_including_a_withdrawn_session_with_its_reason(study, researcher_api):
    session = _sessions(study)[0]
    ParticipantSession.objects.filter(pk=session.pk).update(status="withdrawn")
    refused = researcher_api.post(
        f"/api/v1/studies/{study.slug}/results/participants/{session.pk}/decision/",
        {"decision": "include", "reason": "r"},
        format="json",
    )
    assert refused.status_code == 400
    assert "never included" in refused.json()["errors"]["decision"][0]
