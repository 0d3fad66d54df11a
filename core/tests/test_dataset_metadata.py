"""The shared dataset metadata writer: Croissant, data package and card from one description."""

from __future__ import annotations

import io
import zipfile
from datetime import date

import pytest
from PIL import Image

from core.datasets import (
    Config,
    DatasetDescription,
    Field,
    FileSet,
    StableZip,
    data_file,
    data_version,
    metadata_files,
)
from core.tests import dataset_checks as checks

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

FIELDS = (
    Field("file_name", "string", "The chart image."),
    Field("chart_id", "string", "The chart."),
    Field("score", "number", "A score; empty when unknown.", unit="fraction"),
    Field("n", "integer", "A count."),
    Field("flag", "boolean", "A flag."),
)
CSV = b"file_name,chart_id,score,n,flag\nimages/a.png,a,0.5,3,1\nimages/b.png,b,,0,0\n"


def _png(colour: str) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (6, 6), colour).save(out, format="PNG")
    return out.getvalue()


def _description(license: str = "CC-BY-SA-4.0") -> DatasetDescription:
    table = data_file(
        name="scores",
        path="metadata.csv",
        content=CSV,
        media_type="text/csv",
        description="One row per chart.",
        fields=FIELDS,
        rows=2,
    )
    return DatasetDescription(
        name="tiny-set",
        title="Tiny set",
        description="Two charts.",
        license=license,
        citation="@misc{tiny, title={Tiny}}",
        version=data_version([table]),
        date_created=date(2026, 1, 2),
        date_modified=date(2026, 1, 3),
        creators=("Ada",),
        keywords=("charts",),
        files=(table,),
        filesets=(FileSet("images", "images/*.png", "image/png", "The charts.", 2),),
        configs=(Config("default", ("metadata.csv", "images/*.png"), "one row per chart", True),),
        facts={"charts": 2, "participants": 3},
        rai={"dataCollection": "Simulated.", "personalSensitiveInformation": "None."},
        task_categories=("image-classification",),
    )


def _write(folder, description) -> None:
    (folder / "images").mkdir(parents=True)
    (folder / "images/a.png").write_bytes(_png("red"))
    (folder / "images/b.png").write_bytes(_png("blue"))
    (folder / "metadata.csv").write_bytes(CSV)
    for path, content in metadata_files(description):
        (folder / path).write_bytes(content)


def test_the_three_files_validate_load_and_agree(tmp_path, monkeypatch):
    checks.offline(monkeypatch, tmp_path)
    folder = tmp_path / "set"
    _write(folder, _description())
    records = checks.croissant_records(folder, "scores")
    assert [r["scores/chart_id"] for r in records] == [b"a", b"b"]
    assert len(checks.croissant_records(folder, "images_files")) == 2
    report = checks.frictionless_report(folder)
    assert report.valid, report.flatten(["type", "note"])
    facts = checks.same_facts_everywhere(folder)
    assert facts["header"]["license"] == "cc-by-sa-4.0"
    assert facts["counts"] == {"charts": 2, "participants": 3}
    rows = checks.load(folder)
    assert rows.num_rows == 2 and rows[0]["chart_id"] == "a" and rows[0]["image"].size == (6, 6)


def test_the_same_description_gives_the_same_bytes_and_zip():
    first, second = metadata_files(_description()), metadata_files(_description())
    assert first == second
    zips = []
    for _ in range(2):
        out = io.BytesIO()
        with StableZip(out) as zf:
            for path, content in first:
                zf.writestr(path, content)
        zips.append(out.getvalue())
    assert zips[0] == zips[1]
    assert zipfile.ZipFile(io.BytesIO(zips[0])).infolist()[0].date_time == (1980, 1, 1, 0, 0, 0)


def test_an_unknown_license_falls_back_to_cc_by_and_no_citation_is_said():
    description = _description(license="nonsense")
    files = dict(metadata_files(description))
    assert b"https://creativecommons.org/licenses/by/4.0/" in files["croissant.json"]
    assert b"license: cc-by-4.0" in files["README.md"]
