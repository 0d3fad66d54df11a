"""Importing benchmarks through the service: whole or not at all, idempotent, every problem named."""

from __future__ import annotations

import io
import json
import time
import zipfile

import pytest
from django.core.exceptions import ValidationError

from studies.models import Chart, ChartGroup, ChartSet, ManipulationType, Question
from studies.services.library import ImportRejected, chartset_import
from studies.tests.test_library_helpers import (
    MC_QUESTION,
    chartom_files,
    csv_text,
    png_bytes,
    png_claiming,
    small_files,
    write_folder,
    zip_bytes,
)

pytestmark = pytest.mark.django_db


def media_files(settings):
    root = settings.MEDIA_ROOT / "charts"
    return sorted(p.name for p in root.iterdir()) if root.exists() else []


def rejected(owner, source, **kwargs) -> ImportRejected:
    with pytest.raises(ImportRejected) as info:
        chartset_import(owner=owner, source=source, **kwargs)
    return info.value


def find(problems, file_part, text, row=...):
    return [
        p
        for p in problems
        if file_part in p.file and text in p.message and (row is ... or p.row == row)
    ]


# ------------------------------------------------------------------------------ happy paths


def test_it_imports_56_pairs_of_the_released_layout_in_a_few_seconds(
    tmp_path, researcher, settings
):
    folder = write_folder(tmp_path / "CHARTOM", chartom_files())
    started = time.perf_counter()
    result = chartset_import(owner=researcher, source=folder)
    elapsed = time.perf_counter() - started

    assert elapsed < 5
    chart_set = result.chart_set
    assert (chart_set.slug, chart_set.title, chart_set.source) == ("chartom", "CHARTOM", "imported")
    assert Question.objects.filter(chart_set=chart_set).count() == 56
    assert Chart.objects.filter(question__chart_set=chart_set).count() == 112
    assert ChartGroup.objects.filter(chart_set=chart_set).count() == 14
    assert len(result.summary["created"]) == 56
    assert len(media_files(settings)) == 112


def test_it_maps_the_release_manipulation_names_onto_the_platform_slugs(tmp_path, researcher):
    chartset_import(owner=researcher, source=write_folder(tmp_path / "b", chartom_files()))
    groups = {g.code: (g.chart_type, g.manipulation.slug) for g in ChartGroup.objects.all()}
    assert groups["G2"] == ("line", "compressed_y_axis")
    assert groups["G5"] == ("scatter", "log_y_axis")
    assert groups["G12"] == ("bar", "bar_3d")
    assert groups["G13"] == ("pie", "pie_3d")
    assert groups["G14"] == ("pie", "pie_3d_popout")
    assert not ManipulationType.objects.filter(builtin=False).exists()
    assert set(Chart.objects.filter(version=1).values_list("manipulation__slug", flat=True)) == {
        "none"
    }


def test_it_stores_questions_keys_and_options_per_answer_type(tmp_path, researcher):
    chartset_import(owner=researcher, source=write_folder(tmp_path / "b", small_files()))
    mc = Question.objects.get(code="G3_Q1")
    assert mc.options == ["It has increased.", "It has decreased.", "It stayed the same."]
    assert (mc.answer_key, mc.key_value) == ("2", 1)
    assert mc.stem.endswith("from 2017 to 2020?")
    assert "/n" not in mc.text
    free = Question.objects.get(code="G7_Q1")
    assert (free.answer_type, free.key_value) == ("free_text", pytest.approx(1.3))
    rank = Question.objects.get(code="G13_Q1")
    assert rank.key_value == ["A", "B", "C", "D"]
    assert rank.options == ["A", "B", "C", "D"]
    assert "FACT question" not in rank.mind_question and rank.text in rank.mind_question


def test_images_are_stored_under_content_names_never_the_uploaded_path(tmp_path, researcher):
    chartset_import(owner=researcher, source=write_folder(tmp_path / "b", small_files()))
    chart = Chart.objects.get(chart_id="G7_Q1_2")
    assert "G7" not in chart.image.name
    assert chart.image.name == f"charts/{chart.image_sha256}.png"
    assert chart.original_name == "G7_Q1_2.png"
    assert (chart.width, chart.height) == (24, 16)


def test_a_zip_with_the_layout_wrapped_in_a_folder_imports(researcher):
    upload = io.BytesIO(zip_bytes(small_files(), prefix="CHARTOM/"))
    result = chartset_import(owner=researcher, source=upload, slug="mine", source_name="x.zip")
    assert result.chart_set.slug == "mine" and result.pairs == 3


def test_a_csv_manifest_imports_a_researchers_own_set(tmp_path, researcher):
    rows = [
        ["chart_id", "chart_type", "manipulation", "question", "answer_type", "answer", "image"]
    ]
    for version in (1, 2):
        rows.append(
            [
                f"G1_Q1_{version}",
                "bar",
                "truncated y-axis" if version == 2 else "",
                "How many more? 1. Ten 2. Twenty",
                "multiple choice",
                "Twenty",
                f"img/{version}.png",
            ]
        )
        write_folder(tmp_path / "own", {f"img/{version}.png": png_bytes((version, 0, 0))})
    (tmp_path / "own" / "manifest.csv").write_text(csv_text(rows))
    result = chartset_import(owner=researcher, source=tmp_path / "own" / "manifest.csv", slug="own")
    question = Question.objects.get(chart_set=result.chart_set)
    assert (question.code, question.key_value, question.group.manipulation.slug) == (
        "G1_Q1",
        1,
        "truncated_y_axis",
    )


def test_a_json_manifest_with_a_new_manipulation_adds_that_type(tmp_path, researcher):
    items = [
        {
            "chart_id": f"G20_Q1_{v}",
            "chart_type": "line",
            "manipulation": "Cherry-picked x range" if v == 2 else "none",
            "question": "What was the value in 2020?",
            "answer_type": "free text",
            "answer": "42",
            "image": f"{v}.png",
        }
        for v in (1, 2)
    ]
    files = {
        "manifest.json": json.dumps(items).encode(),
        "1.png": png_bytes(),
        "2.png": png_bytes((1, 2, 3)),
    }
    result = chartset_import(owner=researcher, source=io.BytesIO(zip_bytes(files)), slug="custom")
    assert result.summary["new_manipulations"] == ["cherry_picked_x_range"]
    added = ManipulationType.objects.get(slug="cherry_picked_x_range")
    assert (added.builtin, added.created_by, added.label) == (
        False,
        researcher,
        "Cherry-picked x range",
    )


# ------------------------------------------------------------------------------ idempotence


def test_importing_again_changes_nothing(
    tmp_path, researcher, settings, django_assert_max_num_queries
):
    folder = write_folder(tmp_path / "CHARTOM", chartom_files())
    first = chartset_import(owner=researcher, source=folder)
    before = list(Chart.objects.order_by("pk").values())
    with django_assert_max_num_queries(20):
        second = chartset_import(owner=researcher, source=folder)
    assert second.chart_set.pk == first.chart_set.pk and not second.created_set
    assert len(second.summary["unchanged"]) == 56 and second.summary["files_written"] == 0
    assert list(Chart.objects.order_by("pk").values()) == before
    assert ChartSet.objects.count() == 1 and len(media_files(settings)) == 112


def test_a_changed_upload_updates_the_set_in_place(
    tmp_path, researcher, settings, django_capture_on_commit_callbacks
):
    folder = write_folder(tmp_path / "CHARTOM", small_files())
    chartset_import(owner=researcher, source=folder)
    old_image = Chart.objects.get(chart_id="G3_Q1_1").image.name
    question_pk = Question.objects.get(code="G7_Q1").pk

    changed = small_files()
    changed["chart_images/G3_Q1_1.png"] = png_bytes((1, 1, 1))
    changed["FACT_answer_keys.csv"] = changed["FACT_answer_keys.csv"].replace(b"1.3", b"1.5")
    with django_capture_on_commit_callbacks(execute=True):
        result = chartset_import(owner=researcher, source=write_folder(folder, changed))

    assert sorted(result.summary["updated"]) == ["G3_Q1", "G7_Q1"]
    assert result.summary["unchanged"] == ["G13_Q1"]
    assert Question.objects.get(code="G7_Q1").pk == question_pk
    assert Question.objects.get(code="G7_Q1").key_value == pytest.approx(1.5)
    new_image = Chart.objects.get(chart_id="G3_Q1_1").image.name
    assert new_image != old_image
    # The replaced image belongs to no chart any more, so it is gone.
    assert old_image.split("/")[-1] not in media_files(settings)


def test_pairs_missing_from_a_reimport_are_kept_unless_pruned(tmp_path, researcher):
    chartset_import(owner=researcher, source=write_folder(tmp_path / "a", small_files()))
    fewer = {k: v for k, v in small_files().items() if "G13" not in k}
    fewer["FACT_answer_keys.csv"] = b"".join(
        line + b"\n"
        for line in small_files()["FACT_answer_keys.csv"].splitlines()
        if b"G13" not in line
    )
    fewer["chart_manipulations.csv"] = b"".join(
        line + b"\n"
        for line in small_files()["chart_manipulations.csv"].splitlines()
        if b"G13" not in line
    )
    folder = write_folder(tmp_path / "b", fewer)
    kept = chartset_import(owner=researcher, source=folder, slug="a")
    assert kept.summary["kept"] == ["G13_Q1"] and Question.objects.filter(code="G13_Q1").exists()
    pruned = chartset_import(owner=researcher, source=folder, slug="a", prune=True)
    assert pruned.summary["removed"] == ["G13_Q1"]
    assert not Question.objects.filter(code="G13_Q1").exists()
    assert not ChartGroup.objects.filter(code="G13").exists()


def test_it_refuses_a_slug_owned_by_another_researcher(tmp_path, researcher, other_researcher):
    folder = write_folder(tmp_path / "CHARTOM", small_files())
    chartset_import(owner=other_researcher, source=folder)
    with pytest.raises(ValidationError) as info:
        chartset_import(owner=researcher, source=folder)
    assert "taken by another researcher" in str(info.value)
    assert Question.objects.count() == 3


# ------------------------------------------------------------------------------ bad input


def _without(files, chart_id):
    out = {k: v for k, v in files.items() if chart_id not in k}
    out["FACT_answer_keys.csv"] = b"".join(
        line + b"\n"
        for line in files["FACT_answer_keys.csv"].splitlines()
        if chart_id.encode() not in line
    )
    return out


def _replace(files, name, old, new):
    out = dict(files)
    out[name] = out[name].replace(old, new)
    return out


def _keys_row(files, row):
    out = dict(files)
    out["FACT_answer_keys.csv"] += (",".join(row) + "\n").encode()
    return out


KEYS = "FACT_answer_keys.csv"
BAD_INPUTS = {
    "missing pair member": (
        lambda f: _without(f, "G7_Q1_2"),
        (KEYS, 2, "has no partner G7_Q1_2"),
    ),
    "unknown answer type": (
        lambda f: _replace(f, KEYS, b"G7_Q1_1,free text", b"G7_Q1_1,essay"),
        (KEYS, 2, "unknown answer type 'essay'"),
    ),
    "a key that does not parse": (
        lambda f: _replace(f, KEYS, b"G7_Q1_2,free text,1.3", b"G7_Q1_2,free text,lots"),
        (KEYS, 3, "is not a single number"),
    ),
    "an MC key not among the options": (
        lambda f: _replace(
            f, KEYS, b"G3_Q1_1,multiple choice,2", b"G3_Q1_1,multiple choice,It doubled."
        ),
        (KEYS, 4, "neither an option number"),
    ),
    "duplicate ids": (
        lambda f: _keys_row(f, ["G7_Q1_1", "free text", "1.3"]),
        (KEYS, 8, "listed again (first in row 2)"),
    ),
    "ids that do not follow the naming": (
        lambda f: {**f, "chart_images/G7-Q2-1.png": png_bytes()},
        ("chart_images/G7-Q2-1.png", None, "does not follow the naming"),
    ),
    "an image that is not an image": (
        lambda f: {**f, "chart_images/G7_Q1_1.png": b"this is a text file, not a chart"},
        ("chart_images/G7_Q1_1.png", None, "not an image"),
    ),
    "a truncated image": (
        lambda f: {**f, "chart_images/G7_Q1_1.png": png_bytes(size=(300, 200))[:200]},
        ("chart_images/G7_Q1_1.png", None, "damaged or incomplete"),
    ),
    "too many pixels (a decompression bomb)": (
        lambda f: {**f, "chart_images/G7_Q1_1.png": png_claiming(30_000, 30_000)},
        ("chart_images/G7_Q1_1.png", None, "pixels"),
    ),
    "a CSV in UTF-16 without a byte-order mark": (
        lambda f: {**f, KEYS: f[KEYS].decode().encode("utf-16-le")},
        (KEYS, None, "save it as UTF-8"),
    ),
}


@pytest.mark.parametrize("case", BAD_INPUTS, ids=list(BAD_INPUTS))
def test_it_reports_each_bad_input_with_file_and_row_and_imports_nothing(
    case, tmp_path, researcher, settings
):
    mutate, (file_part, row, text) = BAD_INPUTS[case]
    problems = rejected(researcher, write_folder(tmp_path / "bad", mutate(small_files()))).problems
    assert find(problems, file_part, text, row), [str(p) for p in problems]
    assert not ChartSet.objects.exists() and not Question.objects.exists()
    assert media_files(settings) == []


@pytest.mark.parametrize("case", ["a truncated image", "an MC key not among the options"])
def test_a_bad_reimport_leaves_the_existing_set_untouched(case, tmp_path, researcher, settings):
    chartset_import(owner=researcher, source=write_folder(tmp_path / "ok", small_files()), slug="s")
    before_rows = list(Question.objects.order_by("pk").values())
    before_files = media_files(settings)
    mutate, _ = BAD_INPUTS[case]
    bad = mutate(small_files())
    bad["chart_images/G13_Q1_1.png"] = png_bytes((9, 9, 9))  # a new image that must not be written
    rejected(researcher, write_folder(tmp_path / "bad", bad), slug="s")
    assert list(Question.objects.order_by("pk").values()) == before_rows
    assert media_files(settings) == before_files


def test_it_reports_an_image_over_the_byte_limit(tmp_path, researcher, settings):
    settings.CHARTROOM_MAX_IMAGE_BYTES = 500
    larger = png_bytes(size=(300, 300)) + b"\0" * 600  # trailing bytes: still a valid PNG
    files = {**small_files(), "chart_images/G7_Q1_1.png": larger}
    problems = rejected(researcher, write_folder(tmp_path / "bad", files)).problems
    assert find(problems, "chart_images/G7_Q1_1.png", "the limit is")


def test_it_reports_an_image_over_a_lower_pixel_limit(tmp_path, researcher, settings):
    settings.CHARTROOM_MAX_IMAGE_PIXELS = 100
    problems = rejected(researcher, write_folder(tmp_path / "bad", small_files())).problems
    assert find(problems, "chart_images/G7_Q1_1.png", "the limit is 100 pixels")


def test_it_refuses_a_zip_with_paths_escaping_its_folder(researcher, settings):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in small_files().items():
            zf.writestr(name, data)
        zf.writestr("../outside.png", png_bytes())
        zf.writestr("/etc/cron.d/evil", b"* * * * * root true")
    buffer.seek(0)
    problems = rejected(researcher, buffer, slug="zip").problems
    assert find(problems, "../outside.png", "outside the benchmark folder")
    assert find(problems, "/etc/cron.d/evil", "Absolute paths")
    assert not ChartSet.objects.exists() and media_files(settings) == []
    assert not (settings.MEDIA_ROOT.parent / "outside.png").exists()


def test_a_cp1252_csv_from_a_spreadsheet_is_read(tmp_path, researcher):
    files = small_files()
    files[KEYS] = files[KEYS].replace(
        b"G3_Q1_1,multiple choice,2", b"G3_Q1_1,multiple choice,It has decreased."
    )
    question = MC_QUESTION.replace("CD shipments", "CD shipments (in €)").encode("cp1252")
    files["FACT_questions/G3_Q1_1.txt"] = files["FACT_questions/G3_Q1_2.txt"] = question
    files[KEYS] = files[KEYS].decode().encode("cp1252")
    chartset_import(owner=researcher, source=write_folder(tmp_path / "cp", files))
    assert "(in €)" in Question.objects.get(code="G3_Q1").text


def test_it_reports_pairs_whose_versions_disagree(tmp_path, researcher):
    files = _replace(small_files(), KEYS, b"G7_Q1_2,free text,1.3", b"G7_Q1_2,free text,2.6")
    files["FACT_questions/G13_Q1_2.txt"] = b"A different question?"
    problems = rejected(researcher, write_folder(tmp_path / "bad", files)).problems
    assert find(problems, KEYS, "G7_Q1_1 has the key '1.3' but G7_Q1_2 has '2.6'")
    assert find(problems, "FACT_questions/G13_Q1_2.txt", "differ")


def test_it_reports_a_group_that_mixes_manipulations(tmp_path, researcher):
    files = chartom_files({7: ("bar", "free text", "truncated y-axis")}, questions_per_group=2)
    files["chart_manipulations.csv"] += b"G7_Q2_2,bar,pictorial bars\n"
    problems = rejected(researcher, write_folder(tmp_path / "bad", files)).problems
    assert find(problems, "chart_manipulations.csv", "Group G7 mixes chart types or manipulations")


def test_every_problem_is_reported_at_once(tmp_path, researcher):
    files = small_files()
    for case in (
        "unknown answer type",
        "an image that is not an image",
        "ids that do not follow the naming",
    ):
        files = BAD_INPUTS[case][0](files)
    problems = rejected(researcher, write_folder(tmp_path / "bad", files)).problems
    assert len(problems) >= 3


def test_a_slug_taken_at_the_last_moment_is_a_validation_error(researcher):
    from studies.services.library.pairs import chartset_insert

    chartset_insert(owner=researcher, slug="race", title="First")
    with pytest.raises(ValidationError, match="was just taken"):
        chartset_insert(owner=researcher, slug="race", title="Second")
    assert ChartSet.objects.get(slug="race").title == "First"
