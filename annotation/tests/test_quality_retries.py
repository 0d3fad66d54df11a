"""Retries: two attempts by default, a wait between them, different captions, more attempts on request."""

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from annotation.models import Qualification, QualityPolicy, RoundAttempt
from annotation.selectors.quality import answers_beside_gold
from annotation.selectors.standing import annotator_rounds
from annotation.services import project_create
from annotation.services.quality import (
    QualityError,
    annotator_decide,
    attempt_grant,
    attempt_start,
    policy_for,
)
from annotation.tests.quality_setup import fail_attempt, wait_out_cooldown, with_pool
from core.models import AuditEntry

pytestmark = pytest.mark.django_db


def _state(annotator):
    return Qualification.objects.get(annotator=annotator).state


def test_new_projects_allow_two_attempts_per_round_with_a_short_wait(researcher):
    project = project_create(owner=researcher, title="Fresh")
    policy = policy_for(project)
    assert (policy.max_attempts, policy.retry_delay_minutes) == (2, 10)
    assert QualityPolicy._meta.get_field("max_attempts").default == 2


def test_a_failed_round_shows_as_failed_with_the_time_of_the_next_attempt(
    project, make_items, members, researcher, client_for, password
):
    with_pool(project, make_items, researcher)
    (anna,) = members(1)
    attempt = fail_attempt(project, anna)
    assert _state(anna) == "started"  # one attempt left: not eliminated
    status = annotator_rounds(project=project, annotator=anna)
    first = status.rounds[0]
    assert (status.state, first.status, first.attempts_left) == ("failed", "failed", 1)
    opens = attempt.finished_at + timedelta(minutes=10)
    # On the next whole minute (the pages say HH:MM): never before the delay has passed.
    assert first.retry_at - opens < timedelta(minutes=1) and first.retry_at >= opens
    assert first.retry_at.second == first.retry_at.microsecond == 0

    api = client_for(anna)
    body = api.get(f"/api/v1/annotator/projects/{project.slug}/qualification/").json()
    assert (body["state"], body["state_label"]) == ("failed", "Failed a round, may try again")
    assert body["rounds"][0]["status"] == "failed" and body["rounds"][0]["retry_at"]
    early = api.post(f"/api/v1/annotator/projects/{project.slug}/rounds/1/start/")
    assert early.status_code == 429 and "try this round again after" in early.json()["detail"]

    pages = Client()
    pages.login(username=anna.username, password=password)
    when = timezone.localtime(first.retry_at)
    home = pages.get("/annotation/").content.decode()
    # A retry on another day (just before midnight) names its date too.
    assert re.search(rf"Round 1 failed, next attempt at ({when:%Y-%m-%d} )?{when:%H:%M} UTC", home)
    overview = pages.get(f"/annotation/p/{project.slug}/qualify/").content.decode()
    assert f"Next attempt at {when:%H:%M} UTC" in overview and "Try round 1 again" not in overview

    wait_out_cooldown(attempt)
    overview = pages.get(f"/annotation/p/{project.slug}/qualify/").content.decode()
    assert (
        "Try round 1 again" in overview and "This is your last attempt at this round." in overview
    )


def test_a_retry_asks_captions_the_annotator_has_not_seen(project, make_items, members, researcher):
    setup = with_pool(project, make_items, researcher, pool=4, per_attempt=2)
    (anna,) = members(1)
    first = fail_attempt(project, anna)
    wait_out_cooldown(first)
    second = attempt_start(project=project, annotator=anna, position=1)
    assert second.number == 2 and len(second.gold_ids) == 2
    assert not set(first.gold_ids) & set(second.gold_ids)
    assert set(first.gold_ids + second.gold_ids) == {g.pk for g in setup["pool"]}
    # The researcher's side-by-side view shows each attempt's own captions.
    shown = [[e["gold"].pk for e in entry["items"]] for entry in answers_beside_gold(project, anna)]
    assert shown == [first.gold_ids, second.gold_ids]


def test_the_result_page_shows_score_rule_and_differences_when_the_retry_is_fresh(
    project, make_items, members, researcher, client_for, password
):
    with_pool(project, make_items, researcher, pool=4, per_attempt=2)
    (anna,) = members(1)
    attempt = fail_attempt(project, anna)
    pages = Client()
    pages.login(username=anna.username, password=password)
    page = pages.get(f"/annotation/p/{project.slug}/qualify/1/result/").content.decode()
    assert "Round 1: not passed" in page and "0.00" in page and "pass mark 0.60" in page
    assert "F1 on error labels" in page
    assert page.count("mark-missed") == 2  # one value error per caption, both missed
    assert "It asks captions you have not seen yet." in page and "1 attempt left." in page
    asked = RoundAttempt.objects.get(pk=attempt.pk).gold_ids
    result = client_for(anna).get(f"/api/v1/annotator/projects/{project.slug}/rounds/1/result/")
    data = result.json()
    assert data["review_open"] is True and data["passed"] is False and data["rule"] == "f1"
    assert len(data["items"]) == len(asked) == 2
    marks = [m for item in data["items"] for s in item["sentences"] for m in s["marks"]]
    assert len(marks) == 2 and {m["kind"] for m in marks} == {"missed"}
    # The old review address leads to the result page.
    old = pages.get(f"/annotation/p/{project.slug}/qualify/1/review/")
    assert old.status_code == 302 and old["Location"].endswith("/qualify/1/result/")


def test_with_a_small_pool_the_researchers_labels_wait_until_the_last_attempt(
    project, make_items, members, researcher, client_for, password
):
    with_pool(project, make_items, researcher, pool=2, per_attempt=2)
    (anna,) = members(1)
    first = fail_attempt(project, anna)
    api = client_for(anna)
    review = api.get(f"/api/v1/annotator/projects/{project.slug}/rounds/1/review/")
    assert review.status_code == 403 and "fair test" in review.json()["detail"]
    data = api.get(f"/api/v1/annotator/projects/{project.slug}/rounds/1/result/").json()
    assert data["review_open"] is False
    kinds = {m["kind"] for item in data["items"] for s in item["sentences"] for m in s["marks"]}
    assert kinds <= {"yours"} and "Explained" not in str(data)
    pages = Client()
    pages.login(username=anna.username, password=password)
    page = pages.get(f"/annotation/p/{project.slug}/qualify/1/result/").content.decode()
    assert "shown once you pass it or have no attempt left" in page and "Explained" not in page
    wait_out_cooldown(first)
    fail_attempt(project, anna)
    assert _state(anna) == "eliminated"
    page = pages.get(f"/annotation/p/{project.slug}/qualify/1/result/").content.decode()
    assert "Explained-" in page and "mark-missed" in page
    assert "no attempt is left" in page and "re-read the guidelines" not in page


def test_raising_the_limit_reopens_the_round_for_those_who_used_every_attempt(
    project, make_items, members, researcher, researcher_api
):
    with_pool(project, make_items, researcher, max_attempts=1)
    anna, ben = members(2)
    fail_attempt(project, anna)
    wait_out_cooldown(fail_attempt(project, ben))
    assert _state(anna) == _state(ben) == "eliminated"
    annotator_decide(project=project, annotator=ben, action="disqualify",
                     reason="Copied answers from a forum.", actor=researcher)  # fmt: skip

    url = f"/api/v1/projects/{project.slug}/quality/"
    assert researcher_api.patch(url, {"max_attempts": 2}, format="json").status_code == 200
    assert _state(anna) == "started"
    assert _state(ben) == "eliminated"  # a researcher's own decision stands
    entry = AuditEntry.objects.get(action="annotation.round_reopen")
    assert entry.details == {"annotator": anna.username, "round": 1, "attempts_allowed": 2}
    assert AuditEntry.objects.filter(action="annotation.quality_settings").exists()
    later = timezone.now() + timedelta(minutes=11)
    assert attempt_start(project=project, annotator=anna, position=1, now=later).number == 2


def test_a_researcher_allows_one_annotator_another_attempt_by_api_and_page(
    project, make_items, members, researcher, researcher_api, client_for, password
):
    with_pool(project, make_items, researcher, max_attempts=1)
    anna, ben, cleo = members(3)
    wait_out_cooldown(fail_attempt(project, anna))
    url = f"/api/v1/projects/{project.slug}/annotators/{anna.username}/attempts/"
    missing = researcher_api.post(url, {"round": 1, "reason": ""}, format="json")
    assert missing.status_code == 400 and "reason" in missing.json()["errors"]
    ahead = researcher_api.post(url, {"round": 2, "reason": "Try"}, format="json")
    assert ahead.status_code == 409 and "has not reached round 2" in ahead.json()["detail"]
    granted = researcher_api.post(url, {"round": 1, "reason": "A slip."}, format="json")
    assert granted.status_code == 200
    row = next(r for r in granted.json()["annotators"] if r["annotator"] == anna.username)
    assert row["state"] == "failed"
    again = client_for(anna).post(f"/api/v1/annotator/projects/{project.slug}/rounds/1/start/")
    assert again.status_code == 201 and again.json()["number"] == 2
    entry = AuditEntry.objects.get(action="annotation.attempt_grant")
    assert entry.reason == "A slip." and entry.details["attempts_allowed"] == 2

    # The page: a failed round has the button; the reason is required and logged.
    fail_attempt(project, ben)
    pages = Client()
    pages.login(username=researcher.username, password=password)
    detail = pages.get(f"/annotation/projects/{project.slug}/quality/annotators/{ben.pk}/")
    assert "Allow another attempt" in detail.content.decode()
    grant_url = f"/annotation/projects/{project.slug}/quality/annotators/{ben.pk}/grant/"
    response = pages.post(grant_url, {"round": "1", "reason": "Technical trouble."}, follow=True)
    assert f"{ben.username} may take round 1 once more." in response.content.decode()
    assert _state(ben) == "started"
    refused = pages.post(
        f"/annotation/projects/{project.slug}/quality/annotators/{cleo.pk}/grant/",
        {"round": "1", "reason": "Why not"},
        follow=True,
    )
    assert "has not failed round 1" in refused.content.decode()
    annotator_decide(project=project, annotator=cleo, action="qualify", reason="Expert",
                     actor=researcher)  # fmt: skip
    with pytest.raises(QualityError, match="already passed round 1"):
        attempt_grant(project=project, annotator=cleo, position=1, reason="x", actor=researcher)


def test_the_quality_overview_and_the_annotator_api_use_the_same_state_keys(
    project, make_items, members, researcher, researcher_api, client_for
):
    with_pool(project, make_items, researcher)
    anna, ben, cleo, dan = members(4)
    fail_attempt(project, anna)
    annotator_decide(project=project, annotator=cleo, action="qualify", reason="Expert",
                     actor=researcher)  # fmt: skip
    annotator_decide(project=project, annotator=dan, action="disqualify", reason="Spam",
                     actor=researcher)  # fmt: skip
    overview = researcher_api.get(f"/api/v1/projects/{project.slug}/quality/overview/").json()
    rows = {r["annotator"]: (r["state"], r["state_label"]) for r in overview["annotators"]}
    assert rows == {
        anna.username: ("failed", "Failed a round, may try again"),
        ben.username: ("invited", "Not started"),
        cleo.username: ("qualified", "Qualified"),
        dan.username: ("eliminated", "Not qualified"),
    }
    for user in (anna, ben, cleo, dan):
        api = client_for(user)
        mine = api.get(f"/api/v1/annotator/projects/{project.slug}/qualification/").json()
        joined = api.get("/api/v1/annotator/projects/").json()
        joined = joined["results"] if isinstance(joined, dict) else joined
        assert mine["state"] == rows[user.username][0]
        assert joined[0]["standing"]["state"] == rows[user.username][0]
        assert joined[0]["standing"]["state_label"] == rows[user.username][1]


def test_raising_one_rounds_own_limit_reopens_that_round_even_after_attempts(
    project, make_items, members, researcher, researcher_api, password
):
    setup = with_pool(project, make_items, researcher, max_attempts=1)
    (anna,) = members(1)
    fail_attempt(project, anna)
    assert _state(anna) == "eliminated"
    url = f"/api/v1/projects/{project.slug}/rounds/1/"
    bad = researcher_api.patch(url, {"max_attempts": 11}, format="json")
    assert bad.status_code == 400 and "max_attempts" in bad.json()["errors"]
    raised = researcher_api.patch(url, {"max_attempts": 3}, format="json")
    assert raised.status_code == 200 and raised.json()["max_attempts"] == 3
    assert _state(anna) == "started"
    entry = AuditEntry.objects.get(action="annotation.round_reopen")
    assert entry.reason == "The attempt limit of round 1 was raised."
    status = annotator_rounds(project=project, annotator=anna)
    assert (status.rounds[0].attempts_allowed, status.rounds[1].attempts_allowed) == (3, 1)

    # On the page the limit stays editable once the round was attempted; empty means the project's.
    pages = Client()
    pages.login(username=researcher.username, password=password)
    edit = f"/annotation/projects/{project.slug}/quality/rounds/{setup['rounds'][0].pk}/edit/"
    form = pages.get(edit).content.decode()
    assert (
        'name="max_attempts" value="3"' in form
        and 'name="max_attempts" value="3" disabled' not in form
    )
    saved = pages.post(edit, {"title": "Round one", "max_attempts": ""}, follow=True)
    assert "Round 1 saved." in saved.content.decode()
    setup["rounds"][0].refresh_from_db()
    assert setup["rounds"][0].max_attempts is None


def test_rounds_passed_by_a_researchers_decision_link_to_no_result(
    project, make_items, members, researcher
):
    with_pool(project, make_items, researcher)
    (cleo,) = members(1)
    annotator_decide(project=project, annotator=cleo, action="qualify", reason="Expert",
                     actor=researcher)  # fmt: skip
    client = Client()
    client.force_login(cleo)
    page = client.get(f"/annotation/p/{project.slug}/qualify/").content.decode()
    assert "Passed" in page and "Qualified by the research team: no attempt to show." in page
    assert "Your result" not in page  # it led to "no finished attempt yet"


def test_an_annotator_the_project_has_no_work_for_has_nothing_left(
    project, make_items, members, researcher, client_for
):
    with_pool(project, make_items, researcher)
    make_items(project, 3)  # ordinary items, besides the rounds' gold
    (dan,) = members(1)
    url = f"/api/v1/annotator/projects/{project.slug}/progress/"
    assert client_for(dan).get(url).json()["left_for_you"] > 0  # work once qualified
    annotator_decide(project=project, annotator=dan, action="disqualify", reason="Spam",
                     actor=researcher)  # fmt: skip
    assert client_for(dan).get(url).json()["left_for_you"] == 0
