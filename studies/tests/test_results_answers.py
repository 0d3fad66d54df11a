"""The results page lists a multiple-choice chart's answers the way it states the key: the
option's number counted from 1 and its text, never the stored 0-based index."""

import re

import pytest
from django.urls import reverse

from studies.models import Response
from studies.selectors.results import study_counted_response_count
from studies.services.results.compute import results_compute, results_snapshot_save
from studies.services.results.exclusion import study_exclusion
from studies.tests.factories import simulated_study

pytestmark = pytest.mark.django_db

# The factories' multiple-choice question: "Which year had more? 1. 2018 2. 2019", key "2".
CHART = "G1_Q1_1"


def _chart_detail(html: str, chart_id: str) -> str:
    """The opened detail row of one chart on the results page."""
    start = html.index(f"<caption>Answers to {chart_id} ")
    row_start = html.rindex('<tr class="answers"', 0, start)
    return html[row_start : html.index("</tr>\n    </tbody>", start)]


def _recompute(study) -> None:
    data = results_compute(study, fit_models=False)
    count = study_counted_response_count(study)
    results_snapshot_save(study=study, data=data, response_count=count)


def test_the_key_and_the_answers_of_a_multiple_choice_chart_read_alike(client, researcher):
    study = simulated_study(researcher, participants=8, compute=False)
    # A JSON client may send the option's text: stored as given, read as the same index.
    sent_as_text = Response.objects.filter(
        session__in=study_exclusion(study).included_ids, chart__chart_id=CHART, value=1
    ).first()
    Response.objects.filter(pk=sent_as_text.pk).update(raw_answer="2019")
    _recompute(study)
    client.force_login(researcher)
    html = client.get(reverse("studies:results", args=[study.slug])).content.decode()
    detail = _chart_detail(html, CHART)

    assert "<dt>Answer key</dt><dd>2. 2019</dd>" in detail
    answers = re.findall(r"<tr><td>([^<]*)</td><td>(yes|no)</td>", detail)
    assert sorted(answers) == [("1. 2018", "no"), ("2. 2019", "yes")]


def test_other_answer_types_keep_the_answer_and_key_as_written(client, researcher):
    study = simulated_study(researcher, participants=6)
    client.force_login(researcher)
    html = client.get(reverse("studies:results", args=[study.slug])).content.decode()
    detail = _chart_detail(html, "G1_Q2_1")  # free text, key "1.2"
    assert "<dt>Answer key</dt><dd>1.2</dd>" in detail
    assert "<tr><td>1.2</td><td>yes</td>" in detail
