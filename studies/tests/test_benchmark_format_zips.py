"""Reading a chart benchmark from a zip or a folder: unsafe or damaged archives are refused."""

import os
import stat
import zipfile

import pytest

from studies.benchmark_format import (
    read_benchmark,
)
from studies.tests.benchmark_files import (
    png_bytes,
    write_folder,
    write_zip,
)
from studies.tests.benchmark_format_support import (
    has_problem,
    messages,
    small_files,
)


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
