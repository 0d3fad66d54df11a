"""The results page: what it shows, its actions, and who may see it."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from core.models import AuditEntry, Job
from studies.models import ExclusionOverride, ParticipantSession, Response, StudyResults
from studies.tests.factories import make_study, simulated_study

pytestmark = pytest.mark.django_db


def test_it_shows_the_funnel_hmi_table_plots_tests_and_fits(client, researcher):
    study = simulated_study(researcher)
    client.force_login(researcher)
    page = client.get(reverse("studies:results", args=[study.slug]))
    assert page.status_code == 200
    html = page.content.decode()
    for text in (
        "took part", "included", "HMI per chart", "G1_Q1_2", "Wilson", "<svg",
        "Chi-square", "Estimator: BinomialBayesMixedGLM", "Estimator: GEE", "Kendall",
    ):  # fmt: skip
        assert text in html, text


def test_a_study_without_results_says_so_and_offers_to_compute(client, researcher):
    study = make_study(researcher)
    client.force_login(researcher)
    html = client.get(reverse("studies:results", args=[study.slug])).content.decode()
    assert "No results yet" in html and "Nobody has answered yet" in html


def test_computing_on_demand_runs_a_job_and_stores_the_snapshot(
    client, researcher, django_capture_on_commit_callbacks
):
    study = simulated_study(researcher, compute=False, participants=10)
    client.force_login(researcher)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("studies:results-compute", args=[study.slug]))
    assert response.status_code == 302
    job = Job.objects.get(kind="studies.results_compute")
    assert job.state == "done", job.error
    snapshot = StudyResults.objects.get(study=study)
    assert snapshot.job == job and snapshot.data["funnel"]["took_part"] == 10
    status = client.get(reverse("studies:results-status", args=[study.slug])).json()
    assert status["job"]["state"] == "done"


def test_an_override_needs_a_reason_and_is_logged(client, researcher):
    study = simulated_study(researcher, participants=6, compute=False)
    session = ParticipantSession.objects.filter(study=study, status="completed").first()
    client.force_login(researcher)
    url = reverse("studies:results-override", args=[study.slug, session.pk])
    page = client.post(url, {"decision": "exclude", "reason": ""}, follow=True)
    assert "Give a reason" in page.content.decode()
    assert not ExclusionOverride.objects.exists()
    client.post(url, {"decision": "exclude", "reason": "Said they used a calculator"})
    override = ExclusionOverride.objects.get(session=session)
    assert override.decision == "exclude" and override.decided_by == researcher
    entry = AuditEntry.objects.get(action="study.exclusion_override")
    assert entry.reason == "Said they used a calculator" and entry.details["after"] == "exclude"


def test_another_researchers_study_is_not_found(client, researcher, other_researcher):
    study = simulated_study(researcher, participants=3)
    client.force_login(other_researcher)
    for name, method in (
        ("studies:results", "get"),
        ("studies:results-status", "get"),
        ("studies:results-compute", "post"),
        ("studies:results-export", "post"),
    ):
        response = getattr(client, method)(reverse(name, args=[study.slug]))
        assert response.status_code == 404, name
    download = reverse("studies:results-download", args=[study.slug, "responses-csv"])
    assert client.get(download).status_code == 404


def test_annotators_cannot_open_results(client, annotator, researcher):
    study = make_study(researcher)
    client.force_login(annotator)
    assert client.get(reverse("studies:results", args=[study.slug])).status_code == 403


def test_direct_csv_download_streams_pseudonymous_rows(client, researcher):
    study = simulated_study(researcher, participants=4, compute=False)
    client.force_login(researcher)
    response = client.get(reverse("studies:results-download", args=[study.slug, "responses-csv"]))
    assert response.status_code == 200 and response.streaming
    body = b"".join(response.streaming_content).decode()
    assert body.startswith("participant,participant_number,language,trial_kind")
    assert "sim-4-1" not in body


def test_an_unknown_export_format_is_a_clear_error(client, researcher):
    study = make_study(researcher)
    client.force_login(researcher)
    page = client.post(
        reverse("studies:results-export", args=[study.slug]), {"format": "xls"}, follow=True
    )
    assert "Unknown format" in page.content.decode()


def test_the_page_runs_a_bounded_number_of_queries(client, researcher):
    small = simulated_study(researcher, participants=5)
    large = simulated_study(researcher, participants=40)
    client.force_login(researcher)
    counts = []
    for study in (small, large):
        with CaptureQueriesContext(connection) as captured:
            assert client.get(reverse("studies:results", args=[study.slug])).status_code == 200
        counts.append(len(captured))
    assert counts[0] == counts[1] and counts[0] < 30


def test_a_tiny_p_value_reads_p_below_not_p_equals_below(client, researcher):
    study = simulated_study(researcher, participants=6)
    snapshot = StudyResults.objects.get(study=study)
    snapshot.data["kendall"] = {
        "tau": 0.8,
        "p_value": 0.0002,
        "groups": ["G1", "G2", "G3"],
        "estimator": "GEE",
        "against": "the paper's ranking",
        "message": "",
    }
    snapshot.save(update_fields=["data"])
    client.force_login(researcher)
    html = client.get(reverse("studies:results", args=[study.slug])).content.decode()
    assert "(p &lt; 0.001) over 3 groups" in html
    assert "p = &lt;" not in html


def test_computed_from_counts_only_the_responses_the_results_use(
    client, researcher, django_capture_on_commit_callbacks
):
    study = simulated_study(researcher, participants=6, compute=False)
    preview = ParticipantSession.objects.filter(study=study, status="completed").first()
    ParticipantSession.objects.filter(pk=preview.pk).update(is_preview=True)
    every = Response.objects.filter(session__study=study).count()
    counted = Response.objects.filter(session__study=study).exclude(session=preview).count()
    assert 0 < counted < every
    client.force_login(researcher)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("studies:results-compute", args=[study.slug]))
    assert StudyResults.objects.get(study=study).response_count == counted
    html = client.get(reverse("studies:results", args=[study.slug])).content.decode()
    assert f"from {counted} responses." in html
    assert "recompute to include the new ones" not in html
