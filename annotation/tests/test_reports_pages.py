"""The report page: what researchers see, the controls on it, downloads, and who may open it."""

from __future__ import annotations

import pytest

from annotation.models import ProjectReport
from annotation.services.reports import jobs as report_jobs
from annotation.tests.factories import submit
from core.models import Job

pytestmark = pytest.mark.django_db


@pytest.fixture
def labelled(project, make_items, members):
    annotators = members(3)
    for item in make_items(project, 3, reference=[["label_error"], []]):
        for n, annotator in enumerate(annotators):
            submit(project, item, annotator, [["value_error"] if n else [], []])
    return annotators


@pytest.fixture
def signed_in(client, researcher):
    client.force_login(researcher)
    return client


def url(project, suffix="report/"):
    return f"/annotation/projects/{project.slug}/{suffix}"


def opened(client, project, django_capture_on_commit_callbacks, query=""):
    with django_capture_on_commit_callbacks(execute=True):
        client.get(url(project) + query)
    response = client.get(url(project) + query)
    assert response.status_code == 200
    return response.content.decode()


def test_opening_the_page_computes_the_report_and_shows_everything(
    signed_in, project, labelled, django_capture_on_commit_callbacks
):
    html = opened(signed_in, project, django_capture_on_commit_callbacks)
    assert "Up to date" in html
    assert "Inter-annotator agreement" in html and "Factual / not factual" in html
    assert "Pairwise Cohen" in html and "A01" in html and labelled[0].username in html
    assert "CHOCOLATE Tables 2 and 10" in html and "CHOCOLATE Table 5" in html
    assert "CHOCOLATE Table 6" in html and "report/figure.svg" in html
    assert "When as many annotators marked an error as did not" in html
    for fmt in ("chocolate", "report-json", "labels-csv", "labels-jsonl"):
        assert f"/export/{fmt}/" in html


def test_new_labels_make_the_report_recompute_on_the_next_view(
    signed_in, project, labelled, members, django_capture_on_commit_callbacks
):
    opened(signed_in, project, django_capture_on_commit_callbacks)
    (late,) = members(1)
    submit(project, project.items.first(), late, [[], []])
    html = opened(signed_in, project, django_capture_on_commit_callbacks)
    assert "Up to date" in html
    assert ProjectReport.objects.get(labels="annotators").data["summary"]["label_sets"] == 10


def test_a_running_job_is_shown_and_the_page_refreshes_itself(signed_in, project, labelled):
    response = signed_in.get(url(project))  # the job stays queued inside the test transaction
    html = response.content.decode()
    assert 'http-equiv="refresh"' in html and "Queued" in html and "No report yet" in html
    assert Job.objects.get().state == Job.State.QUEUED


def test_a_failed_job_shows_its_error_and_offers_to_try_again(
    signed_in, project, labelled, monkeypatch, django_capture_on_commit_callbacks
):
    def broken(**kwargs):
        raise RuntimeError("out of memory")

    monkeypatch.setattr(report_jobs, "report_compute", broken)
    html = opened(signed_in, project, django_capture_on_commit_callbacks)
    assert "could not be computed" in html and "out of memory" in html and "Try again" in html


def test_reference_labels_are_the_default_without_annotators_labels(
    signed_in, project, make_items, django_capture_on_commit_callbacks
):
    make_items(project, 2, reference=[["label_error"], []])
    html = opened(signed_in, project, django_capture_on_commit_callbacks)
    assert 'value="reference" checked' in html
    assert "over the imported reference labels" in html
    assert "Inter-annotator agreement" not in html


def test_an_empty_project_shows_what_to_do(signed_in, project, django_capture_on_commit_callbacks):
    html = opened(signed_in, project, django_capture_on_commit_callbacks)
    assert "No labelled items yet." in html


def test_recompute_and_tie_rule_buttons(signed_in, project, labelled):
    response = signed_in.post(url(project, "report/recompute/"), {"labels": "reference"})
    assert response.status_code == 302 and response["Location"].endswith("?labels=reference")
    assert Job.objects.get().params["labels"] == "reference"
    response = signed_in.post(url(project, "report/tie-rule/"), {"tie_rule": "positive"})
    assert response.status_code == 302
    project.refresh_from_db()
    assert project.tie_rule == "positive"
    response = signed_in.post(url(project, "report/tie-rule/"), {"tie_rule": "?"}, follow=True)
    assert "Choose one of negative, positive" in response.content.decode()


def test_figure_tables_and_downloads(
    signed_in, project, labelled, django_capture_on_commit_callbacks
):
    assert signed_in.get(url(project, "report/figure.svg")).status_code == 404
    opened(signed_in, project, django_capture_on_commit_callbacks)
    figure = signed_in.get(url(project, "report/figure.svg"))
    assert figure["Content-Type"] == "image/svg+xml" and figure.content.startswith(b"<svg")
    for name in ("agreement", "annotators", "pairwise", "factuality", "error-types"):
        table = signed_in.get(url(project, f"report/tables/{name}.csv"))
        assert table.status_code == 200 and table["Content-Type"].startswith("text/csv")
    assert signed_in.get(url(project, "report/tables/nope.csv")).status_code == 404
    download = signed_in.get(url(project, "export/chocolate/") + "?labels=reference")
    assert b"label_error" in b"".join(download.streaming_content)
    assert signed_in.get(url(project, "export/xlsx/")).status_code == 404


PAGES = [
    ("get", "report/"),
    ("post", "report/recompute/"),
    ("post", "report/tie-rule/"),
    ("get", "report/figure.svg"),
    ("get", "report/tables/factuality.csv"),
    ("get", "export/labels-csv/"),
]


@pytest.mark.parametrize(("method", "suffix"), PAGES)
def test_annotators_get_a_403_and_strangers_a_login(client, annotator, project, method, suffix):
    anonymous = getattr(client, method)(url(project, suffix))
    assert anonymous.status_code == 302 and "/login" in anonymous["Location"]
    client.force_login(annotator)
    assert getattr(client, method)(url(project, suffix)).status_code == 403


@pytest.mark.parametrize(("method", "suffix"), PAGES)
def test_another_researchers_project_is_a_404(client, other_researcher, project, method, suffix):
    client.force_login(other_researcher)
    assert (
        getattr(client, method)(url(project, suffix), {"tie_rule": "positive"}).status_code == 404
    )
    project.refresh_from_db()
    assert project.tie_rule == "negative" and not Job.objects.exists()
