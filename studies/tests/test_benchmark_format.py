import io
import json
import os
import stat
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
from studies.tests import benchmark_files
from studies.tests.benchmark_files import (
    TABLE_1,
    ChartomStyle,
    csv_text,
    png_bytes,
    png_claiming,
    write_folder,
    write_zip,
)

# The registered answer types' keys (studies.answer_types).
MULTIPLE_CHOICE, FREE_TEXT, RANKING = "multiple_choice", "free_text", "ranking"

MC_QUESTION = (
    "The following graph shows CD shipments. What is the trend of CD shipments "
    "from 2017 to 2020? 1. It has increased. 2. It has decreased. 3. It stayed the same."
)
RANK_QUESTION = (
    "The figure below shows market share for different companies./nSort companies by market "
    "share from largest (1) to smallest (5)."
)
# Options inline in the question, keys with a scale word, five-item rankings, 4 x 3 images.
STYLE = ChartomStyle(
    multiple_choice_question=MC_QUESTION,
    ranking_question=RANK_QUESTION,
    free_text_key=lambda q: "1.2 million" if q % 2 else "1.2",
    ranking_key=lambda q: "A > B > C > D > E" if q % 2 else "A, B, C, D, E",
    image_size=(4, 3),
)


def chartom_files(groups=TABLE_1, questions_per_group=4):
    """{relative path: bytes} of a benchmark in the released layout."""
    return benchmark_files.chartom_files(STYLE, groups, questions_per_group)


def small_files():
    return benchmark_files.small_files(STYLE)


def messages(benchmark):
    return [str(p) for p in benchmark.problems]


def has_problem(benchmark, file_part, text, row=...):
    return any(
        file_part in p.file and text in p.message and (row is ... or p.row == row)
        for p in benchmark.problems
    )


# ----------------------------------------------------------------- happy paths


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


# -------------------------------------------------------------------- problems


def test_it_reports_a_chart_without_its_partner(tmp_path):
    files = small_files()
    for name in list(files):
        if "G7_Q1_2" in name:
            del files[name]
    files["FACT_answer_keys.csv"] = b"\n".join(
        line for line in files["FACT_answer_keys.csv"].split(b"\n") if b"G7_Q1_2" not in line
    )

    benchmark = read_benchmark(write_folder(tmp_path, files))

    assert has_problem(benchmark, "FACT_answer_keys.csv", "G7_Q1_1 has no partner G7_Q1_2")


def test_it_reports_an_unknown_answer_type(tmp_path):
    files = small_files()
    files["FACT_answer_keys.csv"] = files["FACT_answer_keys.csv"].replace(
        b"G7_Q1_2,free text", b"G7_Q1_2,essay"
    )

    benchmark = read_benchmark(write_folder(tmp_path, files))

    assert has_problem(benchmark, "FACT_answer_keys.csv", "unknown answer type 'essay'", row=3)
    assert "G7_Q1_2" not in {c.chart_id for c in benchmark.charts}


def test_it_reports_a_free_text_key_that_is_not_a_number(tmp_path):
    files = small_files()
    files["FACT_answer_keys.csv"] = files["FACT_answer_keys.csv"].replace(
        b"G7_Q1_1,free text,1.2 million", b"G7_Q1_1,free text,more than before"
    )

    benchmark = read_benchmark(write_folder(tmp_path, files))

    assert has_problem(benchmark, "FACT_answer_keys.csv", "G7_Q1_1", row=2)
    assert has_problem(benchmark, "FACT_answer_keys.csv", "not a single number")


def test_it_reports_a_multiple_choice_key_that_is_not_an_option(tmp_path):
    files = small_files()
    files["FACT_answer_keys.csv"] = files["FACT_answer_keys.csv"].replace(
        b"G3_Q1_1,multiple choice,2", b"G3_Q1_1,multiple choice,4"
    )

    benchmark = read_benchmark(write_folder(tmp_path, files))

    assert has_problem(benchmark, "FACT_answer_keys.csv", "neither an option number (1-3)")


def test_it_reports_a_multiple_choice_question_without_options(tmp_path):
    files = small_files()
    files["FACT_questions/G3_Q1_2.txt"] = b"What is the trend of CD shipments?"

    benchmark = read_benchmark(write_folder(tmp_path, files))

    assert has_problem(
        benchmark, "FACT_answer_keys.csv", "G3_Q1_2: The question lists no numbered options"
    )


def test_it_reports_a_ranking_key_with_a_single_item(tmp_path):
    files = small_files()
    files["FACT_answer_keys.csv"] = files["FACT_answer_keys.csv"].replace(
        b"G13_Q1_1,rank,A > B > C > D > E", b"G13_Q1_1,rank,A"
    )

    benchmark = read_benchmark(write_folder(tmp_path, files))

    assert has_problem(benchmark, "FACT_answer_keys.csv", "has one item")


def test_it_reports_duplicate_ids(tmp_path):
    files = small_files()
    files["FACT_answer_keys.csv"] += b"g7_q1_1 ,free text,3\n"
    files["chart_images/g7_Q1_1.PNG"] = png_bytes()

    benchmark = read_benchmark(write_folder(tmp_path, files))

    assert has_problem(
        benchmark, "FACT_answer_keys.csv", "G7_Q1_1 is listed again (first in row 2)", row=8
    )
    assert has_problem(benchmark, "chart_images/", "A second image for G7_Q1_1")


def test_it_reports_ids_that_do_not_follow_the_naming(tmp_path):
    files = small_files()
    files["chart_images/chart7.png"] = png_bytes()
    files["FACT_questions/G7_Q1_3.txt"] = b"What?"
    files["FACT_answer_keys.csv"] += b"G7-1,free text,3\n"

    benchmark = read_benchmark(write_folder(tmp_path, files))

    assert has_problem(benchmark, "chart_images/chart7.png", "does not follow the naming")
    assert has_problem(benchmark, "FACT_questions/G7_Q1_3.txt", "does not follow the naming")
    assert has_problem(benchmark, "FACT_answer_keys.csv", "'G7-1' does not follow", row=8)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "The file is empty"),
        (b"just some text, not a chart\n", "not an image we can read"),
        (png_bytes(size=(300, 300))[:-40], "damaged or incomplete"),
        (png_claiming(100_000, 100_000), "more pixels than we accept"),
    ],
    ids=["empty", "text", "truncated", "bomb"],
)
def test_it_reports_bad_images(tmp_path, data, message):
    files = small_files()
    files["chart_images/G3_Q1_2.png"] = data

    benchmark = read_benchmark(write_folder(tmp_path, files))

    assert has_problem(benchmark, "chart_images/G3_Q1_2.png", message, row=None)
    assert len(benchmark.charts) == 5


def test_it_reports_a_missing_image(tmp_path):
    files = small_files()
    del files["chart_images/G3_Q1_2.png"]

    benchmark = read_benchmark(write_folder(tmp_path, files))

    assert has_problem(benchmark, "chart_images/G3_Q1_2.png", "The image for G3_Q1_2 is missing")


def test_it_reports_an_image_over_the_byte_limit(tmp_path):
    files = small_files()
    files["chart_images/G7_Q1_1.png"] = os.urandom(5000)

    benchmark = read_benchmark(write_folder(tmp_path, files), max_image_bytes=1000)

    assert has_problem(benchmark, "chart_images/G7_Q1_1.png", "the limit is")
    assert len(benchmark.charts) == 5


def test_it_reports_an_image_over_the_pixel_limit(tmp_path):
    files = small_files()
    files["chart_images/G7_Q1_1.png"] = png_bytes(size=(100, 100))

    benchmark = read_benchmark(write_folder(tmp_path, files), max_image_pixels=5000)

    assert has_problem(benchmark, "chart_images/G7_Q1_1.png", "100 x 100 pixels")
    assert len(benchmark.charts) == 5


def test_it_reports_a_missing_question_file(tmp_path):
    files = small_files()
    del files["FACT_questions/G13_Q1_1.txt"]

    benchmark = read_benchmark(write_folder(tmp_path, files))

    assert has_problem(
        benchmark, "FACT_questions/G13_Q1_1.txt", "question file for G13_Q1_1 is missing"
    )


def test_it_reports_missing_files_and_folders_once(tmp_path):
    files = {n: d for n, d in small_files().items() if not n.startswith("FACT_questions/")}
    del files["chart_manipulations.csv"]

    benchmark = read_benchmark(write_folder(tmp_path, files))

    assert messages(benchmark) == [
        "FACT_questions/: This folder is missing; it holds one question file per chart.",
        "chart_manipulations.csv: This file is missing; it gives each group's chart type and "
        "manipulation.",
    ]


def test_it_reports_missing_columns(tmp_path):
    files = small_files()
    files["FACT_answer_keys.csv"] = b"chart id,type,answer\nG7_Q1_1,free text,1\n"

    benchmark = read_benchmark(write_folder(tmp_path, files))

    assert has_problem(benchmark, "FACT_answer_keys.csv", "Missing column(s): answer type", row=1)


def test_it_reports_a_chart_without_an_answer_key_row(tmp_path):
    files = small_files()
    files["FACT_answer_keys.csv"] = b"\n".join(
        line for line in files["FACT_answer_keys.csv"].split(b"\n") if b"G13_Q1_2" not in line
    )

    benchmark = read_benchmark(write_folder(tmp_path, files))

    assert has_problem(benchmark, "FACT_answer_keys.csv", "No answer key for G13_Q1_2", row=None)


@pytest.mark.parametrize(
    "encode",
    [
        lambda text: text.encode("cp1252"),
        lambda text: codecs_bom_utf8() + text.encode("utf-8"),
        lambda text: text.encode("utf-16"),
    ],
    ids=["cp1252", "utf-8-bom", "utf-16-bom"],
)
def test_it_reads_csv_files_in_other_encodings(tmp_path, encode):
    files = small_files()
    files["chart_manipulations.csv"] = encode(
        "chart id;chart type;planted manipulation\r\n"
        "G7_*_2;bar;truncated y-axis\r\nG3_*_2;line;Pr\u00e9-scaled axis\r\nG13_*_2;pie;3D effect\r\n"
    )
    files["FACT_questions/G7_Q1_1.txt"] = encode("Caf\u00e9 sales? /nHow many?")

    benchmark = read_benchmark(write_folder(tmp_path, files))

    assert benchmark.problems == []
    charts = {c.chart_id: c for c in benchmark.charts}
    assert charts["G3_Q1_2"].manipulation_label == "Pr\u00e9-scaled axis"
    assert charts["G7_Q1_1"].question_text == "Caf\u00e9 sales?\nHow many?"


def codecs_bom_utf8():
    return b"\xef\xbb\xbf"


def test_it_reports_utf16_text_without_a_byte_order_mark(tmp_path):
    files = small_files()
    files["FACT_questions/G7_Q1_1.txt"] = "How many?".encode("utf-16-le")

    benchmark = read_benchmark(write_folder(tmp_path, files))

    assert has_problem(benchmark, "FACT_questions/G7_Q1_1.txt", "UTF-16 without a byte-order mark")


def test_it_reports_groups_without_a_manipulation_row_and_rows_without_charts(tmp_path):
    files = small_files()
    files["chart_manipulations.csv"] = csv_text(
        [
            ["chart id", "chart type", "planted manipulation"],
            ["G7_*_2", "bar", "truncated y-axis"],
            ["G13_*_2", "pie", "3D effect"],
            ["G17_*_2", "bar", "truncated y-axis"],
            ["G7_*_2", "bar", "dual axes"],
            ["G7_Q1", "bar", "dual axes"],
        ]
    ).encode()

    benchmark = read_benchmark(write_folder(tmp_path, files))

    assert has_problem(benchmark, "chart_manipulations.csv", "G3_Q1_1, G3_Q1_2; add a row G3_*_2")
    assert has_problem(benchmark, "chart_manipulations.csv", "G17_*_2 matches no chart", row=4)
    assert has_problem(benchmark, "chart_manipulations.csv", "listed again (first in row 2)", row=5)
    assert has_problem(benchmark, "chart_manipulations.csv", "should name a chart", row=6)


def test_it_reports_a_manipulation_on_a_non_manipulated_chart_and_unknown_chart_types(tmp_path):
    files = small_files()
    files["chart_manipulations.csv"] += b"G7_Q1_1,bar,dual axes\nG3_Q1_2,radar,dual axes\n"

    benchmark = read_benchmark(write_folder(tmp_path, files))

    assert has_problem(benchmark, "chart_manipulations.csv", "non-manipulated (_1) chart", row=5)
    assert has_problem(benchmark, "chart_manipulations.csv", "Unknown chart type 'radar'", row=6)


def test_it_keeps_unknown_manipulations_with_their_slug(tmp_path):
    files = small_files()
    files["chart_manipulations.csv"] = files["chart_manipulations.csv"].replace(
        b"inverted y-axis", b"  Rainbow colour map "
    )

    charts = {c.chart_id: c for c in read_benchmark(write_folder(tmp_path, files)).charts}

    assert charts["G3_Q1_2"].manipulation == "rainbow_colour_map"
    assert charts["G3_Q1_2"].manipulation_label == "Rainbow colour map"


def test_it_collects_every_problem_rather_than_stopping_at_the_first(tmp_path):
    files = small_files()
    files["chart_images/G7_Q1_1.png"] = b"not a png"
    del files["FACT_questions/G3_Q1_1.txt"]
    files["FACT_answer_keys.csv"] = files["FACT_answer_keys.csv"].replace(
        b"G13_Q1_2,rank", b"G13_Q1_2,essay"
    )

    benchmark = read_benchmark(write_folder(tmp_path, files))

    assert len(benchmark.problems) == 3
    assert {c.chart_id for c in benchmark.charts} == {"G7_Q1_2", "G3_Q1_2", "G13_Q1_1"}


# ------------------------------------------------------------------------ zips


def zip_with(tmp_path, extra_infos):
    path = write_zip(tmp_path / "b.zip", small_files())
    with zipfile.ZipFile(path, "a") as zf:
        for info, data in extra_infos:
            zf.writestr(info, data)
    return path


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("../evil.txt", "outside the benchmark folder"),
        ("chart_images/../../evil.png", "outside the benchmark folder"),
        ("/etc/evil.txt", "Absolute paths"),
        ("C:\\evil.txt", "Absolute paths"),
        ("..\\evil.txt", "outside the benchmark folder"),
    ],
)
def test_it_rejects_zip_entries_that_escape_the_folder(tmp_path, name, message):
    path = zip_with(tmp_path, [(zipfile.ZipInfo(name), b"x")])

    benchmark = read_benchmark(path)

    assert any(p.file == name and message in p.message for p in benchmark.problems)


def test_it_rejects_symbolic_links_in_a_zip(tmp_path):
    link = zipfile.ZipInfo("chart_images/G9_Q1_1.png")
    link.external_attr = (stat.S_IFLNK | 0o777) << 16
    path = zip_with(tmp_path, [(link, b"/etc/passwd")])

    benchmark = read_benchmark(path)

    assert has_problem(benchmark, "chart_images/G9_Q1_1.png", "Symbolic links are not allowed")
    assert not any("G9" in c.chart_id for c in benchmark.charts)


def test_it_rejects_a_zip_with_too_many_entries(tmp_path):
    path = write_zip(tmp_path / "b.zip", {f"junk/{i}.txt": b"" for i in range(30)})

    benchmark = read_benchmark(path, max_entries=20)

    assert messages(benchmark) == ["b.zip: The archive has 30 entries; at most 20 are accepted."]


def test_it_rejects_too_large_zip_entries(tmp_path):
    files = small_files()
    files["notes/big.bin"] = b"\0" * 50_000
    path = tmp_path / "b.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(name, data)

    benchmark = read_benchmark(path, max_image_bytes=10_000, max_text_bytes=10_000)

    assert has_problem(benchmark, "notes/big.bin", "at most")


def test_it_rejects_a_zip_that_unpacks_to_too_much(tmp_path):
    files = small_files()
    files["notes/big.bin"] = b"\0" * 50_000
    path = tmp_path / "b.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(name, data)

    benchmark = read_benchmark(path, max_total_bytes=20_000)

    assert has_problem(benchmark, "b.zip", "unpacks to")
    assert benchmark.charts == []


def test_it_reports_a_damaged_zip_entry(tmp_path):
    question = b"How many trucks are needed for the Honeycrisp apples?"
    files = small_files()
    files["FACT_questions/G7_Q1_1.txt"] = question
    path = write_zip(tmp_path / "b.zip", files)
    data = path.read_bytes()
    path.write_bytes(data.replace(question, question.replace(b"trucks", b"TRUCKS")))

    benchmark = read_benchmark(path)

    assert has_problem(benchmark, "FACT_questions/G7_Q1_1.txt", "damaged and cannot be unpacked")


def test_it_reports_a_file_that_is_not_a_zip(tmp_path):
    path = tmp_path / "b.zip"
    path.write_bytes(b"hello")

    assert messages(read_benchmark(path)) == ["b.zip: This is not a readable .zip archive."]


def test_it_reports_a_zip_without_a_benchmark(tmp_path):
    path = write_zip(tmp_path / "b.zip", {"a/x.txt": b"", "b/y.txt": b""})

    assert has_problem(read_benchmark(path), "b.zip", "No benchmark found")


def test_it_does_not_follow_symbolic_links_in_a_folder(tmp_path):
    outside = tmp_path / "outside.png"
    outside.write_bytes(png_bytes())
    root = write_folder(tmp_path / "b", small_files())
    (root / "chart_images/G7_Q1_1.png").unlink()
    os.symlink(outside, root / "chart_images/G7_Q1_1.png")

    benchmark = read_benchmark(root)

    assert has_problem(benchmark, "chart_images/G7_Q1_1.png", "Symbolic links are not followed")
    assert "G7_Q1_1" not in {c.chart_id for c in benchmark.charts}


# -------------------------------------------------------------------- manifests

MANIFEST_FIELDS = [
    "chart_id",
    "chart_type",
    "manipulation",
    "question",
    "answer_type",
    "answer",
    "image",
]


def manifest_rows():
    return [
        ["G1_Q1_1", "bar", "", "How many? ", "free text", "12", "img/a.png"],
        ["G1_Q1_2", "bar", "truncated y-axis", "How many?", "free text", "12", "img/b.png"],
        [
            "G2_Q1_1",
            "line",
            "none",
            MC_QUESTION,
            "multiple choice",
            "It has decreased",
            "img/c.png",
        ],
        ["G2_Q1_2", "line", "my own trick", MC_QUESTION, "multiple choice", "2", "img/d.png"],
    ]


def manifest_images(root):
    for i, name in enumerate("abcd"):
        (root / "img").mkdir(parents=True, exist_ok=True)
        (root / f"img/{name}.png").write_bytes(png_bytes(color=(i, i, i)))


def write_manifest_csv(root, rows):
    import csv

    with (root / "manifest.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(MANIFEST_FIELDS)
        writer.writerows(rows)
    return root / "manifest.csv"


def test_it_reads_a_csv_manifest(tmp_path):
    manifest_images(tmp_path)
    path = write_manifest_csv(tmp_path, manifest_rows())

    benchmark = read_benchmark(path)

    assert benchmark.problems == []
    charts = {c.chart_id: c for c in benchmark.charts}
    assert charts["G1_Q1_2"].manipulation == "truncated_y_axis"
    assert charts["G1_Q1_1"].manipulation == "none"
    assert charts["G2_Q1_2"].manipulation == "my_own_trick"
    assert charts["G2_Q1_1"].answer_value == 1
    assert charts["G1_Q1_1"].question_text == "How many?"


def test_it_finds_a_manifest_inside_a_folder_or_zip(tmp_path):
    manifest_images(tmp_path / "set")
    write_manifest_csv(tmp_path / "set", manifest_rows())
    files = {
        str(p.relative_to(tmp_path)): p.read_bytes()
        for p in (tmp_path / "set").rglob("*")
        if p.is_file()
    }

    assert len(read_benchmark(tmp_path / "set").charts) == 4
    assert len(read_benchmark(write_zip(tmp_path / "set.zip", files)).charts) == 4


def test_it_reads_a_json_manifest(tmp_path):
    manifest_images(tmp_path)
    items = [dict(zip(MANIFEST_FIELDS, row, strict=True)) for row in manifest_rows()]
    items[0]["answer"] = 12
    (tmp_path / "manifest.json").write_text(json.dumps(items))

    benchmark = read_benchmark(tmp_path / "manifest.json")

    assert benchmark.problems == []
    assert [c.chart_id for c in benchmark.charts] == ["G1_Q1_1", "G1_Q1_2", "G2_Q1_1", "G2_Q1_2"]
    assert benchmark.charts[0].answer_value == 12.0


def test_it_reports_manifest_problems_by_row(tmp_path):
    manifest_images(tmp_path)
    rows = manifest_rows()
    rows[0][6] = "../secret.png"
    rows[1][2] = ""
    rows[2][2] = "dual axes"
    rows[3][6] = "img/missing.png"
    path = write_manifest_csv(tmp_path, rows)

    benchmark = read_benchmark(path)

    assert has_problem(benchmark, "manifest.csv", "stay inside its folder", row=2)
    assert has_problem(benchmark, "manifest.csv", "the manipulation is empty", row=3)
    assert has_problem(benchmark, "manifest.csv", "non-manipulated (_1) chart", row=4)
    assert has_problem(benchmark, "manifest.csv", "img/missing.png' is missing", row=5)
    assert benchmark.charts == []


def test_it_reports_a_json_manifest_that_is_not_a_list(tmp_path):
    (tmp_path / "manifest.json").write_text('{"charts": []}')

    assert has_problem(read_benchmark(tmp_path / "manifest.json"), "manifest.json", "JSON list")


# ---------------------------------------------------------------------- helpers


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
