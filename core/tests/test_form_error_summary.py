"""A refused settings form says at its top what to fix, linked to the fields, with the browser's bounds
the model's."""

import re

import pytest

from annotation.tests.factories import ProjectFactory
from studies.tests.factories import make_study

pytestmark = pytest.mark.django_db


def test_project_settings_refused_list_each_problem_at_the_top(client, researcher):
    project = ProjectFactory(owner=researcher, title="Caption errors")
    client.force_login(researcher)
    url = f"/annotation/projects/{project.slug}/settings/"
    page = client.get(url).content.decode()
    assert "data-error-summary" not in page
    # The browser is told the bounds the server keeps (it said min=0 and 0 was refused).
    field = re.search(r'<input[^>]*name="annotators_per_item"[^>]*>', page)[0]
    assert 'min="1"' in field and 'max="50"' in field
    refused = client.post(
        url,
        {"action": "settings", "title": project.title, "guidelines": "g",
         "annotators_per_item": 0, "lease_minutes": 0, "pay_per_item": "1",
         "target_hourly_rate": "1", "split_map_text": ""},
    )  # fmt: skip
    body = refused.content.decode()
    assert refused.status_code == 400
    summary = body[
        body.index("data-error-summary") : body.index("</div>", body.index("data-error-summary"))
    ]
    assert "Not saved: 2 things to fix." in summary
    assert (
        '<a href="#id_annotators_per_item">' in summary
        and '<a href="#id_lease_minutes">' in summary
    )
    assert summary.count("greater than or equal to 1") == 2


def test_study_settings_refused_list_the_problem_at_the_top(client, researcher):
    study = make_study(researcher, pairs=2, status="draft")
    client.force_login(researcher)
    url = f"/studies/study/{study.slug}/edit/"
    data = {
        "action": "settings", "title": study.title, "consent_text": "c",
        "instructions_text": "i", "debrief_text": "d", "target_participants": "70",
        "time_limit_minutes": "0", "expected_minutes": "20", "allowed_devices": "all",
        "platform": "prolific", "max_attention_failures": "1", "min_seconds_per_trial": "0",
        "min_trial_ms": "0", "seed": "1", "min_gap": "2",
    }  # fmt: skip
    body = client.post(url, data).content.decode()
    assert "Not saved: 1 thing to fix." in body
    assert '<a href="#id_time_limit_minutes">' in body
