"""Reading a chart benchmark: every problem in its files is reported, with where it is."""

import os

import pytest

from studies.benchmark_format import (
    read_benchmark,
)
from studies.benchmark_format.reader import MAX_MANIPULATION_NAME
from studies.models import ManipulationType
from studies.tests.benchmark_files import (
    csv_text,
    png_bytes,
    png_claiming,
    write_folder,
)
from studies.tests.benchmark_format_support import (
    has_problem,
    messages,
    small_files,
)


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


def test_it_refuses_a_manipulation_name_longer_than_a_name_can_be_stored(tmp_path):
    files = small_files()
    at_limit, over = "A" * MAX_MANIPULATION_NAME, "B" * (MAX_MANIPULATION_NAME + 1)
    files["chart_manipulations.csv"] = (
        files["chart_manipulations.csv"]
        .replace(b"inverted y-axis", at_limit.encode())
        .replace(b"truncated y-axis", over.encode())
    )

    benchmark = read_benchmark(write_folder(tmp_path, files))

    assert has_problem(benchmark, "chart_manipulations.csv", "is 101 characters long", row=2)
    assert has_problem(benchmark, "chart_manipulations.csv", "at most 100. Shorten it.", row=2)
    assert len(benchmark.problems) == 1
    # Nothing is cut: the charts it covers are not read, the name at the limit is kept whole.
    charts = {c.chart_id: c for c in benchmark.charts}
    assert "G7_Q1_2" not in charts
    assert charts["G3_Q1_2"].manipulation_label == at_limit


def test_the_longest_manipulation_name_is_the_longest_one_stored():
    assert ManipulationType._meta.get_field("label").max_length == MAX_MANIPULATION_NAME


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


@pytest.mark.parametrize(
    ("row", "message"),
    [
        # An unquoted comma: the manipulation was the part before it, the rest dropped.
        (
            "G15_*_2,map,truncated axis, 3D effect",
            "This row has 4 cells where the header has 3 columns: quote a cell that holds the "
            "separator.",
        ),
        (
            'G15_*_2,map,"axis"cut',
            "The file is not valid CSV: ',' expected after '\"'. A quote inside a quoted cell is "
            'written twice ("").',
        ),
    ],
)
def test_a_manipulations_row_csv_cannot_read_as_written_is_reported(tmp_path, row, message):
    files = small_files()
    text = files["chart_manipulations.csv"].decode()
    files["chart_manipulations.csv"] = (text + row + "\n").encode()

    benchmark = read_benchmark(write_folder(tmp_path, files))

    assert has_problem(benchmark, "chart_manipulations.csv", message)


def test_a_quote_never_closed_in_a_csv_is_reported(tmp_path):
    files = small_files()
    files["FACT_answer_keys.csv"] = b'chart id,answer type,answer\nG7_Q1_1,free text,"1\n'

    benchmark = read_benchmark(write_folder(tmp_path, files))

    assert has_problem(
        benchmark,
        "FACT_answer_keys.csv",
        'The file is not valid CSV: unexpected end of data. Look for a quote (") that is '
        "opened but never closed.",
    )
