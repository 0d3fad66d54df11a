"""The Croissant (MLCommons, JSON-LD) description of a dataset export, version 1.0.

Every table becomes a FileObject with a RecordSet whose fields read its columns; a
FileSet (the chart images) becomes a RecordSet of file name and image. The
responsible-AI properties (``rai:``) carry what the platform knows about how the
data was collected. Spec: https://docs.mlcommons.org/croissant/docs/croissant-spec.html
"""

from __future__ import annotations

import re

from core.datasets.description import DataFile, DatasetDescription, Field, FileSet
from core.datasets.licenses import license_info

CONTEXT = {
    "@language": "en",
    "@vocab": "https://schema.org/",
    "citeAs": "cr:citeAs",
    "column": "cr:column",
    "conformsTo": "dct:conformsTo",
    "cr": "http://mlcommons.org/croissant/",
    "rai": "http://mlcommons.org/croissant/RAI/",
    "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "dct": "http://purl.org/dc/terms/",
    "equivalentProperty": "cr:equivalentProperty",
    "examples": {"@id": "cr:examples", "@type": "@json"},
    "extract": "cr:extract",
    "field": "cr:field",
    "fileProperty": "cr:fileProperty",
    "fileObject": "cr:fileObject",
    "fileSet": "cr:fileSet",
    "format": "cr:format",
    "includes": "cr:includes",
    "isLiveDataset": "cr:isLiveDataset",
    "jsonPath": "cr:jsonPath",
    "key": "cr:key",
    "md5": "cr:md5",
    "parentField": "cr:parentField",
    "path": "cr:path",
    "recordSet": "cr:recordSet",
    "references": "cr:references",
    "regex": "cr:regex",
    "repeated": "cr:repeated",
    "replace": "cr:replace",
    "samplingRate": "cr:samplingRate",
    "sc": "https://schema.org/",
    "separator": "cr:separator",
    "source": "cr:source",
    "subField": "cr:subField",
    "transform": "cr:transform",
}
DATA_TYPES = {
    "string": "sc:Text",
    "integer": "sc:Integer",
    "number": "sc:Float",
    "boolean": "sc:Boolean",
    "date": "sc:Date",
    "datetime": "sc:DateTime",
}


def node_id(name: str) -> str:
    """An @id from a column or file name (no spaces or slashes: they would read as paths)."""
    return re.sub(r"[^0-9A-Za-z_.-]+", "_", name).strip("_") or "field"


def _file_object(f: DataFile) -> dict:
    return {
        "@type": "cr:FileObject",
        "@id": node_id(f.path),
        "name": node_id(f.path),
        "description": f.description,
        "contentUrl": f.path,
        "contentSize": f"{f.size} B",
        "encodingFormat": f.media_type,
        "sha256": f.sha256,
    }


def _file_set(s: FileSet) -> dict:
    return {
        "@type": "cr:FileSet",
        "@id": node_id(s.name),
        "name": node_id(s.name),
        "description": f"{s.description} ({s.count} files)",
        "encodingFormat": s.media_type,
        "includes": s.glob,
    }


def _description(field: Field) -> str:
    return f"{field.description} Unit: {field.unit}." if field.unit else field.description


def _table_record_set(f: DataFile) -> dict:
    set_id = node_id(f.name)
    fields = []
    for column in f.fields:
        if column.type not in DATA_TYPES:  # lists live in the JSON files, not in a CSV column
            continue
        fields.append(
            {
                "@type": "cr:Field",
                "@id": f"{set_id}/{node_id(column.name)}",
                "name": node_id(column.name),
                "description": _description(column),
                "dataType": DATA_TYPES[column.type],
                "source": {
                    "fileObject": {"@id": node_id(f.path)},
                    "extract": {"column": column.name},
                },
            }
        )
    return {
        "@type": "cr:RecordSet",
        "@id": set_id,
        "name": set_id,
        "description": f.description,
        "field": fields,
    }


def _file_set_record_set(s: FileSet) -> dict:
    set_id = node_id(s.name)
    # Images read as images; text files (one question each, say) as their text.
    content, data_type, what = (
        ("image", "sc:ImageObject", "The image.")
        if s.media_type.startswith("image/")
        else ("text", "sc:Text", "The file's text.")
    )
    return {
        "@type": "cr:RecordSet",
        "@id": f"{set_id}_files",
        "name": f"{set_id}_files",
        "description": f"{s.description}: each file's name and content.",
        "field": [
            {
                "@type": "cr:Field",
                "@id": f"{set_id}_files/file_name",
                "name": "file_name",
                "description": "The file's name.",
                "dataType": "sc:Text",
                "source": {"fileSet": {"@id": set_id}, "extract": {"fileProperty": "filename"}},
            },
            {
                "@type": "cr:Field",
                "@id": f"{set_id}_files/{content}",
                "name": content,
                "description": what,
                "dataType": data_type,
                "source": {"fileSet": {"@id": set_id}, "extract": {"fileProperty": "content"}},
            },
        ],
    }


def croissant_document(d: DatasetDescription) -> dict:
    lic = license_info(d.license)
    doc = {
        "@context": CONTEXT,
        "@type": "sc:Dataset",
        "conformsTo": "http://mlcommons.org/croissant/1.0",
        "name": node_id(d.name),
        "alternateName": d.title,
        "description": d.description,
        "license": lic.url,
        "version": d.version,
        "keywords": list(d.keywords),
        "creator": [{"@type": "sc:Person", "name": name} for name in d.creators],
        "isAccessibleForFree": True,
    }
    if d.url:
        doc["url"] = d.url
    if d.citation:
        doc["citeAs"] = d.citation
    if d.date_created:
        doc["dateCreated"] = d.date_created.isoformat()
    if d.date_modified:
        doc["dateModified"] = d.date_modified.isoformat()
    # schema.org's variableMeasured: the counts, as name/value pairs readers can compare.
    doc["variableMeasured"] = [
        {"@type": "sc:PropertyValue", "name": key, "value": value} for key, value in d.facts.items()
    ]
    doc.update({f"rai:{key}": text for key, text in d.rai.items()})
    doc["distribution"] = [_file_object(f) for f in d.files] + [_file_set(s) for s in d.filesets]
    doc["recordSet"] = [_table_record_set(f) for f in d.files if f.is_table] + [
        _file_set_record_set(s) for s in d.filesets
    ]
    return doc
