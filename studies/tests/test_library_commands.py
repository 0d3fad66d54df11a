"""import_chartom, generate_charts and the demo chart set from the command line."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from demo.library import DEMO_SET_SLUG, load_library_demo
from studies.models import Chart, ChartGroup, ChartSet, ManipulationType, Question
from studies.tests.test_library_helpers import chartom_files, small_files, write_folder, zip_bytes

pytestmark = pytest.mark.django_db


def run(*args):
    out, err = io.StringIO(), io.StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_it_imports_a_56_pair_folder_and_again_in_place(tmp_path, researcher):
    folder = write_folder(tmp_path / "CHARTOM", chartom_files())
    out, _ = run("import_chartom", str(folder), "--owner", researcher.username)
    assert "56 pairs (112 charts)" in out and "56 new" in out
    out, _ = run("import_chartom", str(folder))  # the existing set knows its owner
    assert "56 unchanged" in out and "0 image files written" in out
    assert ChartSet.objects.get().slug == "chartom" and Chart.objects.count() == 112


def test_it_imports_a_zip_into_a_named_set(tmp_path, researcher):
    path = tmp_path / "release.zip"
    path.write_bytes(zip_bytes(small_files(), prefix="CHARTOM/"))
    out, _ = run(
        "import_chartom",
        str(path),
        "--owner",
        "rita",
        "--set",
        "chartom-v1",
        "--title",
        "CHARTOM v1",
    )
    chart_set = ChartSet.objects.get(slug="chartom-v1")
    assert chart_set.title == "CHARTOM v1" and chart_set.source_name == "release.zip"


def test_bad_input_exits_non_zero_printing_every_problem(tmp_path, researcher):
    files = small_files()
    files["chart_images/G7_Q1_1.png"] = b"%PDF-1.7 not a chart"
    files["FACT_answer_keys.csv"] = files["FACT_answer_keys.csv"].replace(
        b"G13_Q1_2,rank", b"G13_Q1_2,ranked list"
    )
    folder = write_folder(tmp_path / "bad", files)
    err = io.StringIO()
    with pytest.raises(CommandError, match="2 problem\\(s\\) .* nothing was imported"):
        call_command("import_chartom", str(folder), "--owner", "rita", stderr=err)
    printed = err.getvalue()
    assert "chart_images/G7_Q1_1.png: This is a PDF file" in printed
    assert "FACT_answer_keys.csv, row 7: G13_Q1_2: unknown answer type 'ranked list'" in printed
    assert not ChartSet.objects.exists()


def test_it_needs_an_owner_for_a_new_set(tmp_path, researcher):
    folder = write_folder(tmp_path / "x", small_files())
    with pytest.raises(CommandError, match="--owner"):
        run("import_chartom", str(folder))
    with pytest.raises(CommandError, match="No researcher named 'nobody'"):
        run("import_chartom", str(folder), "--owner", "nobody")
    with pytest.raises(CommandError, match="no such file"):
        run("import_chartom", str(tmp_path / "missing"), "--owner", "rita")


def test_generate_charts_builds_the_fixture_benchmark_and_rerenders_nothing(researcher):
    out, _ = run("generate_charts", "fixtures/chart_specs.json", "--set", "demo", "--owner", "rita")
    assert "16 new" in out
    chart_set = ChartSet.objects.get(slug="demo")
    assert chart_set.source == ChartSet.Source.GENERATED
    builtin = set(
        ManipulationType.objects.filter(builtin=True)
        .exclude(slug="none")
        .values_list("slug", flat=True)
    )
    assert set(ChartGroup.objects.values_list("manipulation__slug", flat=True)) == builtin
    assert set(Question.objects.values_list("answer_type", flat=True)) == {
        "multiple_choice",
        "free_text",
        "ranking",
    }
    out, _ = run("generate_charts", "fixtures/chart_specs.json", "--set", "demo")
    assert "16 unchanged" in out


def test_generate_charts_reports_a_bad_spec_file(tmp_path, researcher):
    spec = tmp_path / "bad.json"
    spec.write_text('[{"id": "G1_Q1", "group": "G1", "chart_type": "donut"}]')
    err = io.StringIO()
    with pytest.raises(CommandError, match="nothing was saved"):
        call_command("generate_charts", str(spec), "--set", "x", "--owner", "rita", stderr=err)
    assert "chart_type: unknown chart type 'donut'" in err.getvalue()
    assert not ChartSet.objects.exists()


def test_the_library_demo_is_idempotent_and_covers_every_manipulation(researcher):
    first = load_library_demo(researcher)
    images = dict(Chart.objects.values_list("chart_id", "image"))
    second = load_library_demo(researcher)
    assert first.pk == second.pk and first.slug == DEMO_SET_SLUG
    assert dict(Chart.objects.values_list("chart_id", "image")) == images
    assert Question.objects.filter(chart_set=first).count() == 16
    assert (
        ChartGroup.objects.filter(chart_set=first).values("manipulation").distinct().count() == 12
    )
