"""The chart library pages: import from the browser, the pair browser, editing, preview, generator."""

from __future__ import annotations

import io
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from studies.models import Chart, ChartSet, Question
from studies.services.library import chartset_import
from studies.tests.test_library_helpers import (
    chartom_files,
    fixture_specs,
    png_bytes,
    small_files,
    write_folder,
    zip_bytes,
)

pytestmark = pytest.mark.django_db

FIXTURE_SPECS = fixture_specs()


@pytest.fixture
def small_set(tmp_path, researcher):
    return chartset_import(
        owner=researcher, source=write_folder(tmp_path / "s", small_files()), slug="small"
    ).chart_set


def url(name, *args):
    return reverse(f"studies:{name}", args=args)


def test_the_library_shows_an_empty_state_then_the_sets(signed_in, small_set):
    ChartSet.objects.all().delete()
    page = signed_in.get(url("library")).content.decode()
    assert "No chart sets yet." in page
    signed_in.post(url("chartset-create"), {"title": "My charts"})
    page = signed_in.get(url("library")).content.decode()
    assert "My charts" in page and "my-charts" in page


def test_it_imports_56_pairs_from_the_upload_form(signed_in):
    upload = SimpleUploadedFile("CHARTOM.zip", zip_bytes(chartom_files()))
    response = signed_in.post(url("chartset-import"), {"file": upload, "target": "__new__"})
    assert response.status_code == 302 and response["Location"] == url("chartset-detail", "chartom")
    page = signed_in.get(response["Location"]).content.decode()
    assert "56 pairs imported" in page and "56 new" in page
    assert Chart.objects.count() == 112


def test_the_upload_form_lists_every_problem_with_file_and_row(signed_in):
    files = small_files()
    files["FACT_answer_keys.csv"] += b"G7_Q1_1,free text,1.3\n"
    files["chart_images/G3_Q1_2.png"] = png_bytes(size=(40, 40))[:60]
    upload = SimpleUploadedFile("CHARTOM.zip", zip_bytes(files))
    response = signed_in.post(url("chartset-import"), {"file": upload, "target": "__new__"})
    assert response.status_code == 400
    page = response.content.decode()
    assert "2 problems found; nothing was imported" in page
    assert "FACT_answer_keys.csv, row 8</span>: G7_Q1_1 is listed again" in page
    assert "chart_images/G3_Q1_2.png</span>: The image file is damaged" in page
    assert not ChartSet.objects.exists()


def test_importing_into_an_existing_set_updates_it(signed_in, small_set):
    upload = SimpleUploadedFile("any-name.zip", zip_bytes(small_files()))
    response = signed_in.post(url("chartset-import"), {"file": upload, "target": "small"})
    assert response["Location"] == url("chartset-detail", "small")
    assert ChartSet.objects.count() == 1


def test_a_large_upload_is_imported_by_a_job_with_a_status_page(
    signed_in, settings, django_capture_on_commit_callbacks
):
    settings.CHARTROOM_IMPORT_SYNC_MAX_BYTES = 10
    upload = SimpleUploadedFile("CHARTOM.zip", zip_bytes(small_files()))
    with django_capture_on_commit_callbacks(execute=True):
        response = signed_in.post(url("chartset-import"), {"file": upload, "target": "__new__"})
    assert "/library/import/jobs/" in response["Location"]
    done = signed_in.get(response["Location"])
    assert done.status_code == 302 and done["Location"] == url("chartset-detail", "chartom")


def test_the_pair_browser_shows_groups_and_pairs_in_constant_queries(
    signed_in, tmp_path, researcher, django_assert_max_num_queries
):
    chartset_import(owner=researcher, source=write_folder(tmp_path / "CHARTOM", chartom_files()))
    with django_assert_max_num_queries(8):
        response = signed_in.get(url("chartset-detail", "chartom"))
    page = response.content.decode()
    assert page.count('class="pair-row"') == 56
    assert page.index('id="group-G2"') < page.index('id="group-G10"')
    assert "Inverted color scale" in page and "3D effect + pop-out (pie)" in page


def test_another_researcher_gets_404_on_every_page(client, other_researcher, small_set):
    client.force_login(other_researcher)
    for page in (
        url("chartset-detail", "small"),
        url("pair-detail", "small", "G7_Q1"),
        url("chart-preview", "small", "G7_Q1_1"),
        url("chartset-export", "small"),
    ):
        assert client.get(page).status_code == 404, page
    assert (
        client.post(url("question-edit", "small", "G7_Q1"), {"answer_key": "1"}).status_code == 404
    )
    assert client.post(url("chartset-delete", "small")).status_code == 404
    assert ChartSet.objects.filter(slug="small").exists()


def test_annotators_cannot_open_the_library(client, annotator):
    client.force_login(annotator)
    assert client.get(url("library")).status_code == 403


def _edit(client, code, **change):
    question = Question.objects.get(code=code)
    data = {
        "text": question.text,
        "answer_type": question.answer_type,
        "answer_key": question.answer_key,
        "tolerance": question.tolerance,
        **change,
    }
    return client.post(url("question-edit", "small", code), data)


def test_editing_a_key_is_validated_for_its_type(signed_in, small_set):
    response = _edit(signed_in, "G3_Q1", answer_key="It doubled.")
    assert response.status_code == 400
    assert "neither an option number (1-3) nor the text of an option" in response.content.decode()
    response = _edit(signed_in, "G7_Q1", answer_key="between 1 and 2")
    assert response.status_code == 400 and "not a single number" in response.content.decode()
    response = _edit(signed_in, "G13_Q1", answer_key="A")
    assert response.status_code == 400 and "has one item" in response.content.decode()
    assert Question.objects.get(code="G3_Q1").answer_key == "2"

    response = _edit(signed_in, "G7_Q1", answer_key="1.2 million", tolerance=0.05)
    assert response.status_code == 302
    question = Question.objects.get(code="G7_Q1")
    assert (question.key_value, question.tolerance) == (1_200_000, 0.05)


def test_replacing_an_image_from_the_pair_page(signed_in, small_set):
    image = SimpleUploadedFile("new.png", png_bytes((3, 3, 3), size=(50, 40)))
    response = signed_in.post(url("chart-image", "small", "G7_Q1_2"), {"image": image})
    assert response.status_code == 302
    assert Chart.objects.get(chart_id="G7_Q1_2").width == 50
    bad = SimpleUploadedFile("new.png", b"\x89PNG\r\n\x1a\n truncated")
    response = signed_in.post(url("chart-image", "small", "G7_Q1_2"), {"image": bad})
    assert response.status_code == 400 and "damaged or incomplete" in response.content.decode()


def test_the_preview_shows_the_participant_trial_and_checks_answers(
    signed_in, small_set, django_assert_max_num_queries
):
    with django_assert_max_num_queries(5):
        page = signed_in.get(url("chart-preview", "small", "G3_Q1_2")).content.decode()
    assert page.count('type="radio" name="answer"') == 3
    assert "Sign out" not in page  # participants see no researcher navigation
    correct = signed_in.post(url("chart-preview", "small", "G3_Q1_2"), {"answer": "1"})
    assert "Correct." in correct.content.decode()

    page = signed_in.get(url("chart-preview", "small", "G7_Q1_1")).content.decode()
    assert 'inputmode="decimal"' in page
    near = signed_in.post(url("chart-preview", "small", "G7_Q1_1"), {"answer": "1.43"})
    assert "Correct." in near.content.decode()
    far = signed_in.post(url("chart-preview", "small", "G7_Q1_1"), {"answer": "1.44"})
    assert "Not correct." in far.content.decode()
    words = signed_in.post(url("chart-preview", "small", "G7_Q1_1"), {"answer": "a lot"})
    assert words.status_code == 400 and "Please enter a number" in words.content.decode()

    ranks = {"rank-0": "1", "rank-1": "2", "rank-2": "3", "rank-3": "4"}
    ranked = signed_in.post(url("chart-preview", "small", "G13_Q1_2"), ranks)
    assert "Correct." in ranked.content.decode()
    twice = signed_in.post(url("chart-preview", "small", "G13_Q1_2"), {**ranks, "rank-3": "1"})
    assert "give each its own rank, from 1 to 4" in twice.content.decode()


def test_the_generator_previews_without_saving_then_saves(signed_in, small_set):
    page = signed_in.get(url("generator") + "?fixture=G14_Q1").content.decode()
    assert "pie_3d_popout" in page and "G14_Q1" in page
    spec = json.dumps(next(s for s in FIXTURE_SPECS if s["id"] == "G14_Q1"))
    preview = signed_in.post(
        url("generator"), {"spec": spec, "action": "preview", "chart_set": "small"}
    )
    body = preview.content.decode()
    assert body.count("data:image/png;base64,") == 2
    assert not Question.objects.filter(code="G14_Q1").exists()
    saved = signed_in.post(url("generator"), {"spec": spec, "action": "save", "chart_set": "small"})
    assert saved["Location"] == url("pair-detail", "small", "G14_Q1")
    assert Chart.objects.filter(question__code="G14_Q1").count() == 2
    assert "CHARTOM" not in signed_in.get(saved["Location"]).content.decode()
    # A name outside the CHARTOM naming is saved, and told what it will not do.
    own = json.dumps({**json.loads(spec), "id": "H14_Q1", "group": "H14"})
    saved = signed_in.post(
        url("generator"), {"spec": own, "action": "save", "chart_set": "small"}, follow=True
    )
    page = saved.content.decode()
    assert Chart.objects.filter(question__code="H14_Q1").count() == 2
    assert "H14_Q1_1, H14_Q1_2 do not follow it. Name pairs G1_Q1, G1_Q2 ... for them." in page


def test_the_generator_shows_spec_problems_and_group_conflicts(signed_in, small_set):
    bad = signed_in.post(url("generator"), {"spec": "{not json", "action": "preview"})
    assert bad.status_code == 400 and "not valid JSON" in bad.content.decode()
    # G3 of the small set is a line group with an inverted y-axis; this spec plants another one.
    clash = dict(FIXTURE_SPECS[0], id="G3_Q9", group="G3")
    response = signed_in.post(
        url("generator"), {"spec": json.dumps(clash), "action": "save", "chart_set": "small"}
    )
    assert response.status_code == 400 and "Use another group id" in response.content.decode()
    assert not Question.objects.filter(code="G3_Q9").exists()


def test_the_generator_saves_into_a_new_set(signed_in):
    spec = json.dumps(FIXTURE_SPECS[0])
    no_title = signed_in.post(
        url("generator"), {"spec": spec, "action": "save", "chart_set": "__new__", "new_title": ""}
    )
    assert no_title.status_code == 400 and not ChartSet.objects.exists()
    response = signed_in.post(
        url("generator"),
        {"spec": spec, "action": "save", "chart_set": "__new__", "new_title": "Lines"},
    )
    assert response["Location"] == url("pair-detail", "lines", "G1_Q1")


def test_manipulation_types_page_adds_one(signed_in):
    response = signed_in.post(
        url("manipulation-list"), {"label": "Cropped baseline", "vocabulary": "cropped, baseline"}
    )
    assert response.status_code == 302
    page = signed_in.get(url("manipulation-list")).content.decode()
    assert "cropped_baseline" in page
    again = signed_in.post(url("manipulation-list"), {"label": "Dual axis"})
    assert again.status_code == 400 and "exists already" in again.content.decode()


def test_reserved_slugs_are_refused(signed_in):
    upload = SimpleUploadedFile("x.zip", zip_bytes(small_files()))
    response = signed_in.post(
        url("chartset-import"), {"file": upload, "target": "__new__", "slug": "import"}
    )
    assert response.status_code == 400 and "reserved" in response.content.decode()


def test_an_export_with_a_missing_image_says_which_chart_instead_of_failing(
    signed_in, small_set, researcher_api
):
    chart = Chart.objects.filter(question__chart_set=small_set).order_by("chart_id").first()
    chart.image.storage.delete(chart.image.name)
    response = signed_in.get(url("chartset-export", "small"))
    assert response.status_code == 302 and response["Location"] == url("chartset-detail", "small")
    page = signed_in.get(response["Location"]).content.decode()
    assert f"The image of {chart.chart_id} is missing or damaged." in page
    response = researcher_api.get(f"/api/v1/library/chart-sets/{small_set.slug}/export/")
    assert response.status_code == 400
    assert f"The image of {chart.chart_id} is missing or damaged." in json.dumps(response.json())


def test_a_chart_outside_the_chartom_naming_is_named_in_both_exports(signed_in, small_set):
    from django.core.exceptions import ValidationError

    from studies.services.exports import export_write
    from studies.tests.factories import make_study

    chart = Chart.objects.filter(question__chart_set=small_set, version=1).first()
    chart.chart_id = "my-own-chart"
    chart.save(update_fields=["chart_id"])
    response = signed_in.get(url("chartset-export", "small"), follow=True)
    assert (
        "my-own-chart does not follow the CHARTOM naming G&lt;group&gt;_Q&lt;question&gt;_&lt;1|2&gt;, "
        "so the set cannot be written in that layout." in response.content.decode()
    )
    study = make_study(small_set.owner, chart_set=small_set)
    with pytest.raises(ValidationError, match="my-own-chart does not follow .* export it as JSON"):
        export_write(study=study, slug="hmi-zip", out=io.BytesIO())


def test_the_chartom_downloads_are_offered_only_when_the_ids_follow_its_naming(
    signed_in, small_set
):
    from studies.tests.factories import make_study

    study = make_study(small_set.owner, chart_set=small_set)
    results = f"/studies/study/{study.slug}/results/"
    page = signed_in.get(url("chartset-detail", "small")).content.decode()
    assert "Download (CHARTOM .zip)</a>" in page and 'id="chartom-problem"' not in page
    assert 'id="chartom-problem"' not in signed_in.get(results).content.decode()

    chart = Chart.objects.filter(question__chart_set=small_set, version=1).first()
    chart.chart_id = "H1G_Q1_1"
    chart.save(update_fields=["chart_id"])
    page = signed_in.get(url("chartset-detail", "small")).content.decode()
    assert "Download (CHARTOM .zip)</a>" not in page
    assert "H1G_Q1_1 does not follow it." in page
    page = signed_in.get(results).content.decode()
    assert "H1G_Q1_1 does not follow it." in page
    assert '<option value="hmi-zip" disabled>' in page
