"""The dataset card (README.md) in the Hugging Face format: a YAML header, then prose.

The header's ``configs`` name the files ``datasets.load_dataset(folder)`` reads, so the
folder loads in one line without any loading script.
Format: https://huggingface.co/docs/hub/datasets-cards
"""

from __future__ import annotations

# PyYAML comes with drf-spectacular; it quotes what needs quoting in the header.
import yaml

from core.datasets.description import DatasetDescription, size_category
from core.datasets.licenses import license_info


def _header(d: DatasetDescription) -> str:
    rows = max((f.rows or 0 for f in d.files), default=0)
    header = {
        "pretty_name": d.title,
        "license": license_info(d.license).hf,
        "language": ["en"],
        "task_categories": list(d.task_categories),
        "size_categories": [size_category(rows)],
        "tags": list(d.keywords),
        "configs": [
            {
                "config_name": c.name,
                **({"default": True} if c.default else {}),
                "data_files": [{"split": "train", "path": list(c.paths)}],
            }
            for c in d.configs
        ],
    }
    return yaml.safe_dump(header, sort_keys=False, allow_unicode=True, width=1000)


def _facts(d: DatasetDescription) -> list[str]:
    lic = license_info(d.license)
    lines = [
        "| fact | value |",
        "|---|---|",
        f"| version | {d.version} |",
        f"| license | {lic.title} ({lic.spdx}) |",
        f"| date created | {d.date_created.isoformat() if d.date_created else ''} |",
        f"| date modified | {d.date_modified.isoformat() if d.date_modified else ''} |",
    ]
    lines += [f"| {key} | {value} |" for key, value in d.facts.items()]
    return lines


def _loading(d: DatasetDescription) -> list[str]:
    lines = ["```python", "from datasets import load_dataset", ""]
    for c in d.configs:
        name = "" if c.default else f', "{c.name}"'
        lines.append(
            f'{c.name} = load_dataset("path/to/this/folder"{name})["train"]  # {c.description}'
        )
    return lines + ["```"]


def _columns(d: DatasetDescription) -> list[str]:
    lines = []
    for f in d.files:
        if not f.is_table:
            continue
        lines += [
            "",
            f"### `{f.path}`",
            "",
            f.description,
            "",
            "| column | type | meaning |",
            "|---|---|---|",
        ]
        for column in f.fields:
            unit = f" ({column.unit})" if column.unit else ""
            lines.append(f"| `{column.name}` | {column.type} | {column.description}{unit} |")
    if d.missing_values:
        shown = ", ".join(repr(v) if v else "an empty cell" for v in d.missing_values)
        lines += ["", f"A missing value is written as {shown}."]
    return lines


def _collection(d: DatasetDescription) -> list[str]:
    titles = {
        "dataCollection": "Data collection",
        "dataCollectionType": "Collection type",
        "dataAnnotationProtocol": "Annotation procedure",
        "dataAnnotationPlatform": "Platform",
        "annotatorDemographics": "Participants and annotators",
        "personalSensitiveInformation": "Personal information",
        "dataPreprocessingProtocol": "Processing",
        "dataLimitations": "Limitations",
    }
    return [f"- **{titles.get(key, key)}.** {text}" for key, text in d.rai.items()]


def card_markdown(d: DatasetDescription) -> str:
    lines = ["---", _header(d).rstrip("\n"), "---", "", f"# {d.title}", "", d.description, ""]
    lines += ["## Loading", "", *_loading(d), ""]
    lines += ["## Facts", "", *_facts(d), ""]
    lines += ["## Files", ""]
    lines += [f"- `{f.path}`: {f.description}" for f in d.files]
    lines += [f"- `{s.glob}`: {s.description} ({s.count} files)" for s in d.filesets]
    lines += [
        "- `croissant.json`, `datapackage.json`: the same facts as Croissant and Frictionless"
    ]
    lines += ["", "## Columns", *_columns(d), ""]
    for heading, text in d.card_sections:
        lines += [f"## {heading}", "", text.rstrip("\n"), ""]
    if d.rai:
        lines += ["## How the data was collected", "", *_collection(d), ""]
    lines += [
        "## License",
        "",
        f"{license_info(d.license).title}: {license_info(d.license).url}",
        "",
    ]
    lines += ["## Citation", ""]
    if d.citation:
        lang = "bibtex" if d.citation.lstrip().startswith("@") else "text"
        lines += [f"```{lang}", d.citation.strip(), "```", ""]
    else:
        lines += ["No citation given yet.", ""]
    return "\n".join(lines)
