"""Checks of an exported dataset folder with the reference libraries (test helpers).

mlcroissant, frictionless and datasets are development dependencies: only tests use them.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import yaml


def offline(monkeypatch, tmp_path) -> None:
    """No network for datasets / huggingface_hub, and a cache of the test's own."""
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf-cache"))


def load(folder: Path, config: str | None = None, cache: Path | None = None):
    import datasets

    args = (str(folder),) if config is None else (str(folder), config)
    cache_dir = str(cache or folder.parent / "hf-cache")
    return datasets.load_dataset(*args, cache_dir=cache_dir)["train"]


def croissant_records(folder: Path, record_set: str, limit: int = 1000) -> list[dict]:
    """Validate croissant.json (any error raises) and read a record set's records."""
    import mlcroissant

    dataset = mlcroissant.Dataset(jsonld=str(folder / "croissant.json"))
    records = []
    for n, record in enumerate(dataset.records(record_set=record_set)):
        if n >= limit:
            break
        records.append(record)
    return records


def frictionless_report(folder: Path):
    import frictionless

    cwd = os.getcwd()
    os.chdir(folder)  # resources' paths are relative to the package, read from its folder
    try:
        return frictionless.validate("datapackage.json")
    finally:
        os.chdir(cwd)


def card_header(folder: Path) -> dict:
    text = (folder / "README.md").read_text()
    match = re.match(r"---\n(.*?)\n---\n", text, re.S)
    assert match, "the card starts with a YAML header"
    return yaml.safe_load(match.group(1))


def card_facts(folder: Path) -> dict[str, str]:
    """The card's Facts table as a dict."""
    text = (folder / "README.md").read_text()
    section = text.split("## Facts", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|")[1:3] for line in section.splitlines() if line.startswith("| ")]
    return {key.strip(): value.strip() for key, value in rows[1:]}


def same_facts_everywhere(folder: Path) -> dict:
    """Read version, dates, license and counts from all three files; assert they agree."""
    croissant = json.loads((folder / "croissant.json").read_text())
    package = json.loads((folder / "datapackage.json").read_text())
    header, facts = card_header(folder), card_facts(folder)
    assert croissant["version"] == package["version"] == facts["version"]
    assert croissant.get("dateModified", "") == package.get("dateModified", "")
    assert croissant.get("dateModified", "") == facts["date modified"]
    assert croissant.get("dateCreated", "") == facts["date created"]
    assert croissant["license"] == package["licenses"][0]["path"]
    assert facts["license"].endswith(f"({package['licenses'][0]['name']})")
    counts = {p["name"]: p["value"] for p in croissant["variableMeasured"]}
    assert counts == package["facts"]
    assert {k: str(v) for k, v in counts.items()} == {k: facts[k] for k in counts}
    assert croissant.get("citeAs") == package.get("citation")
    return {"croissant": croissant, "package": package, "header": header, "counts": counts}
