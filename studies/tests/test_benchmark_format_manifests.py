"""Reading a chart benchmark described by a CSV or JSON manifest."""

import json

from studies.benchmark_format import (
    read_benchmark,
)
from studies.tests.benchmark_files import (
    png_bytes,
    write_zip,
)
from studies.tests.benchmark_format_support import (
    MC_QUESTION,
    has_problem,
)

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


def test_it_refuses_a_manipulation_name_longer_than_a_name_can_be_stored(tmp_path):
    manifest_images(tmp_path)
    rows = manifest_rows()
    rows[3][2] = "my own trick " * 10  # 129 characters once its spacing is tidied

    benchmark = read_benchmark(write_manifest_csv(tmp_path, rows))

    assert has_problem(benchmark, "manifest.csv", "is 129 characters long", row=5)
    assert [c.chart_id for c in benchmark.charts] == ["G1_Q1_1", "G1_Q1_2", "G2_Q1_1"]


def test_it_reports_a_json_manifest_that_is_not_a_list(tmp_path):
    (tmp_path / "manifest.json").write_text('{"charts": []}')

    assert has_problem(read_benchmark(tmp_path / "manifest.json"), "manifest.json", "JSON list")
