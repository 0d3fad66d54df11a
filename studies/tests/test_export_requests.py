"""An export asked for twice while it is being built is built once; the page names formats."""

import pytest

from core.models import Job
from studies.services.exports import export_request
from studies.tests.factories import make_study

pytestmark = pytest.mark.django_db


def test_the_same_export_asked_again_while_queued_is_the_same_job(researcher):
    study = make_study(researcher, pairs=2)
    first = export_request(study=study, slug="responses-csv", user=researcher)
    again = export_request(study=study, slug="responses-csv", user=researcher)
    assert not first.was_already_queued and again.was_already_queued and again.pk == first.pk
    # Another format, or the same with platform ids, is another export.
    other = export_request(study=study, slug="hmi-json", user=researcher)
    with_ids = export_request(
        study=study, slug="responses-csv", user=researcher, include_platform_ids=True
    )
    assert len({first.pk, other.pk, with_ids.pk}) == 3
    # Once it is done (or failed), asking again builds it afresh.
    Job.objects.filter(pk=first.pk).update(state=Job.State.DONE)
    assert export_request(study=study, slug="responses-csv", user=researcher).pk != first.pk


def test_a_double_click_on_build_export_queues_one_and_the_list_names_the_format(
    client, researcher, password
):
    study = make_study(researcher, pairs=2)
    client.login(username=researcher.username, password=password)
    url = f"/studies/study/{study.slug}/results/export/"
    client.post(url, {"format": "responses-csv"})
    page = client.post(url, {"format": "responses-csv"}, follow=True).content.decode()
    assert Job.objects.filter(subject=study.subject).count() == 1
    assert "This export is being built already" in page
    jobs = page[page.index('<ul class="export-jobs">') :]
    jobs = jobs[: jobs.index("</ul>")]
    assert "Responses, long form (CSV)" in jobs and "responses-csv" not in jobs
