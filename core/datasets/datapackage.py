"""The Frictionless data package (datapackage.json, Data Package v1) of a dataset export.

Every CSV is a tabular resource with its Table Schema (types, descriptions, units)
and the missing-value convention; other data files, and each file of a file set (a data
package has no globs), are listed with their hash.
Spec: https://specs.frictionlessdata.io/data-package/
"""

from __future__ import annotations

from core.datasets.description import DataFile, DatasetDescription, Field
from core.datasets.licenses import license_info


def _schema_field(field: Field) -> dict:
    out = {"name": field.name, "type": field.type, "description": field.description}
    if field.unit:
        out["unit"] = field.unit  # not in Table Schema v1: a custom property it allows
    return out


def _resource(f: DataFile, missing: tuple[str, ...]) -> dict:
    out = {
        "name": f.name.lower(),
        "path": f.path,
        "description": f.description,
        "mediatype": f.media_type,
        "bytes": f.size,
        "hash": f"sha256:{f.sha256}",
    }
    if not f.media_type.startswith("image/"):  # an image's bytes have no text encoding
        out["encoding"] = "utf-8"
    if f.media_type == "text/csv":
        out.update(
            profile="tabular-data-resource",
            format="csv",
            schema={"fields": [_schema_field(c) for c in f.fields], "missingValues": list(missing)},
        )
        if f.rows is not None:
            out["rows"] = f.rows
    else:
        # A file to keep as it is, not a table: without this, readers (frictionless among
        # them) parse a JSON list of records as a table and want extra packages for it.
        out.update(format=f.path.rsplit(".", 1)[-1], type="file")
    return out


def datapackage_document(d: DatasetDescription) -> dict:
    lic = license_info(d.license)
    doc = {
        "profile": "data-package",
        "name": d.name.lower(),
        "title": d.title,
        "description": d.description,
        "version": d.version,
        "licenses": [{"name": lic.spdx, "path": lic.url, "title": lic.title}],
        "keywords": list(d.keywords),
        "contributors": [{"title": name, "role": "author"} for name in d.creators],
    }
    if d.url:
        doc["homepage"] = d.url
    if d.citation:
        doc["citation"] = d.citation
    if d.date_created:
        doc["dateCreated"] = d.date_created.isoformat()
    if d.date_modified:
        # "created" is the package's own time: the data's last change, so it never moves
        # between two exports of the same data.
        doc["created"] = f"{d.date_modified.isoformat()}T00:00:00Z"
        doc["dateModified"] = d.date_modified.isoformat()
    doc["facts"] = dict(d.facts)
    members = [f for s in d.filesets for f in s.members]
    doc["resources"] = [_resource(f, d.missing_values) for f in [*d.files, *members]]
    return doc
