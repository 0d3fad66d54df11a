"""The quality overview says for each annotator whether their labels count (true), do not
(false) or are not decided yet (null), and why not, as the exports and the report count them."""

import pytest
import yaml
from rest_framework.test import APIClient

from annotation.models import Qualification
from annotation.selectors.agreement import counted_label_sets
from annotation.selectors.quality import LABELS_EXCLUDED_BECAUSE
from annotation.services.quality import annotator_decide
from annotation.tests.factories import submit
from annotation.tests.quality_setup import qualify, with_rounds

pytestmark = pytest.mark.django_db


def _overview(researcher, project) -> dict:
    api = APIClient()
    api.force_authenticate(researcher)
    body = api.get(f"/api/v1/projects/{project.slug}/quality/overview/").json()
    return {row["annotator"]: row for row in body["annotators"]}


def test_each_annotator_says_whether_their_labels_count_and_why_not(
    project, make_items, members, researcher
):
    with_rounds(project, make_items, researcher, controls=0)
    qualified, taking, blocked, eliminated, reincluded = members(5)
    for person in (qualified, blocked, reincluded):
        qualify(project, person)
    for person, action in ((blocked, "block"), (reincluded, "block"), (reincluded, "include"),
                           (eliminated, "disqualify")):  # fmt: skip
        annotator_decide(project=project, annotator=person, action=action, reason="r",
                         actor=researcher)  # fmt: skip
    rows = _overview(researcher, project)

    assert rows[qualified.username]["labels_included"] is True
    assert rows[qualified.username]["labels_excluded_because"] is None
    assert rows[reincluded.username]["labels_included"] is True
    # Still taking the rounds: not decided yet, and said so.
    assert rows[taking.username]["labels_included"] is None
    assert rows[taking.username]["labels_excluded_because"]["code"] == "not_qualified_yet"
    assert "qualification rounds" in rows[taking.username]["labels_excluded_because"]["text"]
    assert rows[blocked.username]["labels_included"] is False
    assert rows[blocked.username]["labels_excluded_because"]["code"] == "blocked"
    assert rows[eliminated.username]["labels_included"] is False
    assert rows[eliminated.username]["labels_excluded_because"]["code"] == "eliminated"
    # The researcher's own include setting stays readable beside its effect.
    assert rows[reincluded.username]["labels_reincluded"] is True
    assert {rows[p.username]["labels_reincluded"] for p in (qualified, taking, blocked)} == {False}


def test_without_rounds_an_active_annotators_labels_count(project, members, researcher):
    (anna,) = members(1)
    row = _overview(researcher, project)[anna.username]
    assert row["labels_included"] is True and row["labels_excluded_because"] is None


def test_the_overview_agrees_with_the_label_sets_that_count(
    project, make_items, members, researcher
):
    with_rounds(project, make_items, researcher, controls=0)
    people = members(4)
    qualify(project, people[0])
    qualify(project, people[1])
    Qualification.objects.filter(annotator=people[1]).update(work_state="blocked")
    Qualification.objects.filter(annotator=people[2]).update(state="eliminated")
    item = make_items(project, 1)[0]
    for person in people:
        submit(project, item, person, [[], []])
    counted = set(counted_label_sets(project).values_list("annotator__username", flat=True))
    rows = _overview(researcher, project)
    assert {name for name, row in rows.items() if row["labels_included"]} == counted


def test_the_schema_documents_the_meaning(client):
    schema = yaml.safe_load(client.get("/api/schema/").content)
    row = schema["components"]["schemas"]["QualificationRow"]["properties"]
    assert row["labels_included"]["nullable"] is True
    assert "null while not decided yet" in row["labels_included"]["description"]
    because = schema["components"]["schemas"]["LabelsExcluded"]["properties"]["code"]
    assert all(code in because["description"] for code in LABELS_EXCLUDED_BECAUSE)


def test_the_dashboard_says_why_labels_do_not_count(
    project, make_items, members, researcher, password, client
):
    with_rounds(project, make_items, researcher, controls=0)
    taking, blocked = members(2)
    qualify(project, blocked)
    annotator_decide(project=project, annotator=blocked, action="block", reason="r",
                     actor=researcher)  # fmt: skip
    client.login(username=researcher.username, password=password)
    body = client.get(f"/annotation/projects/{project.slug}/quality/").content.decode()
    assert 'data-labels-excluded="not_qualified_yet">Labels not counted yet:' in body
    assert 'data-labels-excluded="blocked">Labels left out: A researcher blocked' in body
