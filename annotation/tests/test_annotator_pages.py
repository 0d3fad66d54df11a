"""The annotator's pages: the labelling page, drafts on reload, progress, skip, done; query counts."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from annotation.models import Assignment, Item
from annotation.services import (
    assignment_draft_save,
    assignment_next,
    assignment_submit,
    category_create,
)
from annotation.tests.conftest import CHOCOLATE  # noqa: F401 - the shared data must exist

pytestmark = pytest.mark.django_db


def work_url(project):
    return f"/annotation/p/{project.slug}/work/"


def test_the_page_shows_the_chart_the_sentences_and_seven_toggles_each(
    signed_in_member, project, make_items
):
    make_items(project, 2)
    body = signed_in_member.get(work_url(project)).content.decode()
    assert 'src="https://charts.example.org/0.png"' in body
    assert "Sales rose to 20.4% in 2010." in body and "They fell later." in body
    assert body.count('class="toggle"') == 14
    assert body.count('aria-pressed="false"') == 14
    assert 'aria-keyshortcuts="v"' in body
    # Definitions and examples are there for hover and focus, and the guidelines one click away.
    assert 'id="def-value_error"' in body and "20.4% in 1990" in body
    assert "A blue button indicates the caption contains" in body
    assert 'id="guidelines-open"' in body


def test_a_reload_shows_the_saved_draft(signed_in_member, project, make_items):
    make_items(project, 1)
    lease = assignment_next(project=project, annotator=signed_in_member.user)
    assignment_draft_save(
        assignment_id=lease.pk, annotator=signed_in_member.user, labels=[["trend_error"], []]
    )
    body = signed_in_member.get(work_url(project)).content.decode()
    assert body.count('aria-pressed="true"') == 1
    assert 'data-key="trend_error" aria-pressed="true"' in body
    assert "Draft restored" in body


def test_progress_and_estimated_pay_are_shown(signed_in_member, project, make_items):
    make_items(project, 3)
    lease = assignment_next(project=project, annotator=signed_in_member.user)
    Assignment.objects.filter(pk=lease.pk).update(leased_at=timezone.now() - timedelta(minutes=5))
    assignment_submit(
        assignment_id=lease.pk, annotator=signed_in_member.user, labels=[[], []], active_seconds=120
    )
    body = signed_in_member.get(work_url(project)).content.decode()
    # Three items: one submitted, one on screen, one more available.
    assert '<strong>Item 2</strong>, <span id="left-for-you">1</span> more available' in body
    # $0.50 per 120 s = $15.00 an hour, the target.
    assert '<strong class="on-target">$15.00/h</strong>' in body
    assert "target $15.00/h" in body
    home = signed_in_member.get("/annotation/").content.decode()
    assert "Continue your item" in home and "$15.00/h" in home


def test_skipping_from_the_page_needs_a_reason(signed_in_member, project, make_items):
    make_items(project, 2)
    lease = assignment_next(project=project, annotator=signed_in_member.user)
    url = f"/annotation/p/{project.slug}/work/{lease.pk}/skip/"
    response = signed_in_member.post(url, {"reason": ""}, follow=True)
    assert "Say briefly why you skip this item." in response.content.decode()
    response = signed_in_member.post(url, {"reason": "Image missing"}, follow=True)
    assert "Skipped. Here is your next item." in response.content.decode()
    lease.refresh_from_db()
    assert lease.state == Assignment.State.SKIPPED


def test_when_nothing_is_left_the_page_says_so(signed_in_member, project):
    response = signed_in_member.get(work_url(project))
    assert response.status_code == 200
    assert "Nothing left for you" in response.content.decode()


def test_projects_not_joined_are_404_and_researchers_are_turned_away(
    client, make_user, password, project, researcher
):
    stranger = make_user("annotator")
    client.login(username=stranger.username, password=password)
    assert client.get(work_url(project)).status_code == 404
    assert client.get(f"/annotation/p/{project.slug}/guidelines/").status_code == 404
    client.login(username=researcher.username, password=password)
    assert client.get(work_url(project)).status_code == 403


def test_the_guidelines_page_shows_the_default_text_and_categories(signed_in_member, project):
    body = signed_in_member.get(f"/annotation/p/{project.slug}/guidelines/").content.decode()
    assert "In this task, you will evaluate the factual errors" in body
    assert "<li>Value error: A quantitative data value is incorrect.</li>" in body
    assert body.count('class="category-entry"') == 7


def _count(client, url, method="get", **kwargs):
    with CaptureQueriesContext(connection) as queries:
        response = getattr(client, method)(url, **kwargs)
    assert response.status_code in (200, 201), response.content
    return len(queries)


def test_the_work_page_query_count_does_not_grow_with_the_item_or_the_project(
    signed_in_member, project, make_items, members, django_assert_max_num_queries
):
    make_items(project, 2)
    small = _count(signed_in_member, work_url(project))  # leases the item
    resumed = _count(signed_in_member, work_url(project))

    Item.objects.filter(project=project).delete()
    Assignment.objects.all().delete()
    make_items(project, 60, sentences=[f"Sentence {n}." for n in range(10)])
    for n in range(3):
        category_create(
            project=project,
            key=f"extra_{n}",
            name=f"Extra {n}",
            definition="d",
            shortcut=str(n + 1),
        )
    for other in members(3):
        lease = assignment_next(project=project, annotator=other)
        assignment_submit(assignment_id=lease.pk, annotator=other, labels=[[]] * 10)
    large = _count(signed_in_member, work_url(project))
    assert large == small
    with django_assert_max_num_queries(resumed):
        signed_in_member.get(work_url(project))
    assert resumed <= 16


def test_submit_and_draft_query_counts_are_constant(
    project, make_items, members, client_for, django_assert_num_queries
):
    (anna,) = members(1)
    api = client_for(anna)
    make_items(project, 1)
    make_items(project, 1, sentences=[f"Sentence {n}." for n in range(9)])
    counts = []
    for sentences in (2, 9):
        lease = api.post(f"/api/v1/annotator/projects/{project.slug}/next/").json()
        assert len(lease["item"]["sentences"]) == sentences
        labels = [["value_error", "trend_error"]] * sentences
        draft = _count(
            api, f"/api/v1/annotator/assignments/{lease['id']}/draft/", "put",
            data={"labels": labels}, format="json",
        )  # fmt: skip
        submit = _count(
            api, f"/api/v1/annotator/assignments/{lease['id']}/submit/", "post",
            data={"labels": labels}, format="json",
        )  # fmt: skip
        counts.append((draft, submit))
    assert counts[0] == counts[1]
    assert counts[0][1] <= 12
