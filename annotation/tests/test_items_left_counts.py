""" "Items left" is one number: the home card, the work page and the API agree after every step."""

import json
import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from annotation.models import Assignment, GoldItem
from annotation.services import assignment_next, assignment_submit
from annotation.services.quality import controls
from annotation.tests.quality_setup import qualify, with_rounds

pytestmark = pytest.mark.django_db

HOME = re.compile(r"(\d+) items? left for you")
WORK = re.compile(r'<span id="left-for-you">(\d+)</span>')
STATE = re.compile(r'id="work-state" type="application/json">(.*?)</script>', re.S)


class Draws:
    """The control draw, scripted: 0.0 asks for a control, 0.99 for an ordinary item."""

    def __init__(self, values):
        self.values = list(values)

    def random(self):
        return self.values.pop(0) if self.values else 0.99


def test_items_left_is_the_same_on_the_home_page_the_work_page_and_the_api(
    project, make_items, members, researcher, password, client_for, monkeypatch
):
    with_rounds(project, make_items, researcher, controls=3, control_rate=0.3, min_controls=100)
    make_items(project, 10)
    anna, ben, cleo = members(3)
    for person in (anna, ben, cleo):
        qualify(project, person)
    monkeypatch.setattr(controls, "_rng", Draws([0.99, 0.0, 0.99, 0.99, 0.0]))
    pages = Client()
    pages.login(username=anna.username, password=password)
    api = client_for(anna)
    slug = project.slug

    def counts() -> tuple[int, int]:
        """Open the work page (it leases an item), then read every count; returns (left, lease)."""
        work = pages.get(f"/annotation/p/{slug}/work/").content.decode()
        on_work = int(WORK.search(work).group(1))
        lease = json.loads(STATE.search(work).group(1))["assignment"]
        on_home = int(HOME.search(pages.get("/annotation/").content.decode()).group(1))
        progress = api.get(f"/api/v1/annotator/projects/{slug}/progress/").json()["left_for_you"]
        joined = api.get("/api/v1/annotator/projects/").json()
        joined = joined["results"] if isinstance(joined, dict) else joined
        standing = joined[0]["standing"]["left_for_you"]
        assert on_work == on_home == progress == standing, (on_work, on_home, progress, standing)
        assert (
            f"Item {Assignment.objects.filter(annotator=anna, state='submitted').count() + 1}"
            in work
        )
        return on_work, lease

    def submit(lease):
        response = api.post(f"/api/v1/annotator/assignments/{lease}/submit/",
                            {"labels": [[], []]}, format="json")  # fmt: skip
        assert response.status_code == 201

    # 10 ordinary items and 3 controls: one in hand, 12 more.
    left, lease = counts()
    assert left == 12
    assert counts() == (12, lease)  # a reload keeps the same item and the same number
    kinds = []
    for _ in range(4):  # submits, controls among them: each lowers the count by one
        kinds.append(GoldItem.objects.filter(item__assignments__pk=lease).exists())
        submit(lease)
        before = left
        left, lease = counts()
        assert left == before - 1
    assert any(kinds), "a control item came up"

    skip = api.post(f"/api/v1/annotator/assignments/{lease}/skip/", {"reason": "No image"},
                    format="json")  # fmt: skip
    assert skip.status_code == 200
    before = left
    left, lease = counts()
    assert left == before - 1

    # Two others fill items up to k = 3: anna's count falls with them, everywhere alike.
    for person in (ben, cleo):
        for _ in range(3):
            other = assignment_next(project=project, annotator=person)
            assignment_submit(assignment_id=other.pk, annotator=person, labels=[[], []])
    left, lease = counts()

    # Her lease runs out: the next visit leases an item again, and the count is unchanged.
    Assignment.objects.filter(pk=lease).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert counts()[0] == left
