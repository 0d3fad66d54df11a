"""Reading and writing chart benchmarks: the released CHARTOM layout read and written back."""

import io
import zipfile

import pytest
from PIL import Image

from studies.benchmark_format import (
    KNOWN_MANIPULATIONS,
    manipulation_slug,
    parse_chart_id,
    read_benchmark,
    write_benchmark,
)
from studies.tests.benchmark_files import (
    csv_text,
    write_folder,
    write_zip,
)
from studies.tests.benchmark_format_support import (
    FREE_TEXT,
    MC_QUESTION,
    MULTIPLE_CHOICE,
    RANKING,
    chartom_files,
    small_files,
)


def test_it_reads_all_56_pairs_of_the_released_layout(tmp_path):
    benchmark = read_benchmark(write_folder(tmp_path, chartom_files()))

    assert benchmark.problems == []
    assert benchmark.ok
    assert len(benchmark.charts) == 112
    assert len({c.question_id for c in benchmark.charts}) == 56
    assert [c.version for c in benchmark.charts[:2]] == [1, 2]
    assert {c.manipulation for c in benchmark.charts if c.version == 1} == {"none"}
    assert {c.manipulation for c in benchmark.charts if c.version == 2} <= set(KNOWN_MANIPULATIONS)
    assert {c.chart_type for c in benchmark.charts} == {"line", "bar", "scatter", "pie", "map"}


def test_it_fills_every_field_of_a_chart(tmp_path):
    charts = {c.chart_id: c for c in read_benchmark(write_folder(tmp_path, chartom_files())).charts}

    mc = charts["G3_Q1_2"]
    assert (mc.group, mc.question_id, mc.version, mc.manipulated) == ("G3", "G3_Q1", 2, True)
    assert mc.chart_type == "line"
    assert mc.manipulation == "inverted_y_axis"
    assert mc.manipulation_label == KNOWN_MANIPULATIONS["inverted_y_axis"]
    assert mc.answer_type == MULTIPLE_CHOICE
    assert mc.question_text == MC_QUESTION
    assert mc.question.endswith("from 2017 to 2020?")
    assert mc.options == ["It has increased.", "It has decreased.", "It stayed the same."]
    assert (mc.answer_key, mc.answer_value) == ("2", 1)
    assert charts["G3_Q2_1"].answer_value == 1  # keyed by the option's text

    free = charts["G7_Q1_1"]
    assert free.answer_type == FREE_TEXT
    assert (free.answer_key, free.answer_value) == ("1.2 million", 1_200_000.0)
    assert free.options == []
    assert free.manipulation == "none"
    assert free.chart_type == "bar"  # a _1 chart takes its group's chart type

    rank = charts["G13_Q2_2"]
    assert rank.answer_type == RANKING
    assert rank.answer_value == ["A", "B", "C", "D", "E"]
    assert rank.question_text.split("\n")[1].startswith("Sort companies")
    assert rank.image.format == "PNG"
    assert rank.image.width == 4


def test_it_tells_the_3d_bar_and_3d_pie_groups_apart_by_chart_type(tmp_path):
    charts = {c.chart_id: c for c in read_benchmark(write_folder(tmp_path, chartom_files())).charts}

    assert charts["G12_Q1_2"].manipulation == "bar_3d"
    assert charts["G13_Q1_2"].manipulation == "pie_3d"
    assert charts["G14_Q1_2"].manipulation == "pie_3d_popout"
    assert charts["G2_Q1_2"].manipulation == "compressed_y_axis"


def test_it_reads_a_zip_whose_layout_is_wrapped_in_one_folder(tmp_path):
    files = chartom_files()
    files["__MACOSX/._FACT_answer_keys.csv"] = b"\x00\x05junk"
    archive = write_zip(tmp_path / "chartom.zip", files, prefix="CHARTOM/")

    benchmark = read_benchmark(archive)

    assert benchmark.problems == []
    assert len(benchmark.charts) == 112


def test_it_reads_a_zip_from_an_open_file(tmp_path):
    archive = write_zip(tmp_path / "b.zip", small_files())
    with archive.open("rb") as handle:
        benchmark = read_benchmark(handle)
    assert benchmark.ok
    assert len(benchmark.charts) == 6


def test_written_benchmarks_read_back_unchanged(tmp_path):
    original = read_benchmark(write_folder(tmp_path / "in", chartom_files())).charts

    with zipfile.ZipFile(tmp_path / "out.zip", "w") as zf:
        write_benchmark(original, zf)
    write_benchmark(original, tmp_path / "out")

    from_zip = read_benchmark(tmp_path / "out.zip")
    from_folder = read_benchmark(tmp_path / "out")
    assert from_zip.problems == [] and from_folder.problems == []
    assert from_zip.charts == original
    assert from_folder.charts == original


def test_round_trip_keeps_per_chart_manipulations_and_custom_names(tmp_path):
    files = small_files()
    files["chart_manipulations.csv"] = csv_text(
        [
            ["chart id", "chart type", "planted manipulation"],
            ["G7_*_2", "bar", "truncated y-axis"],
            ["G3_*_2", "line", "Smoothed  spline"],
            ["G13_Q1_2", "pie", "3D effect"],
            ["G13_Q1_1", "bar", ""],
        ]
    ).encode()
    original = read_benchmark(write_folder(tmp_path / "in", files))
    assert original.problems == []
    charts = {c.chart_id: c for c in original.charts}
    assert charts["G3_Q1_2"].manipulation == "smoothed_spline"
    assert charts["G3_Q1_2"].manipulation_label == "Smoothed spline"
    assert charts["G13_Q1_1"].chart_type == "bar"

    write_benchmark(original.charts, tmp_path / "out")

    assert read_benchmark(tmp_path / "out").charts == original.charts


def test_a_jpeg_chart_is_written_without_reencoding(tmp_path):
    files = small_files()
    buffer = io.BytesIO()
    Image.new("RGB", (5, 5), "blue").save(buffer, "JPEG")
    del files["chart_images/G7_Q1_1.png"]
    files["chart_images/G7_Q1_1.jpg"] = buffer.getvalue()
    original = read_benchmark(write_folder(tmp_path / "in", files))
    assert original.ok

    write_benchmark(original.charts, tmp_path / "out")

    assert (tmp_path / "out/chart_images/G7_Q1_1.jpg").read_bytes() == buffer.getvalue()
    assert read_benchmark(tmp_path / "out").charts == original.charts


def test_write_refuses_a_chart_id_outside_the_naming(tmp_path):
    chart = read_benchmark(write_folder(tmp_path / "in", small_files())).charts[0]
    from dataclasses import replace

    with pytest.raises(ValueError, match="does not follow"):
        write_benchmark([replace(chart, chart_id="chart-1")], tmp_path / "out")


def test_chart_ids_are_parsed_leniently_but_strictly_shaped():
    assert str(parse_chart_id(" g07_q1_2 ")) == "G7_Q1_2"
    assert parse_chart_id("G7_Q1_3") is None
    assert parse_chart_id("G7_1") is None


def test_manipulation_names_become_slugs():
    assert manipulation_slug("truncated y-axis") == "truncated_y_axis"
    assert manipulation_slug("  Truncated  Y-Axis ") == "truncated_y_axis"
    assert manipulation_slug("3D effect", "pie") == "pie_3d"
    assert manipulation_slug("3D effect", "bar") == "bar_3d"
    assert manipulation_slug("") == "none"
    assert manipulation_slug("Wobbly bars") == "wobbly_bars"
    assert set(KNOWN_MANIPULATIONS) >= {"none", "truncated_y_axis", "pie_3d_popout"}
