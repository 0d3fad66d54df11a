"""Dataset metadata shared by every dataset export: Croissant, a Frictionless data
package and a Hugging Face dataset card, all written from one plain description.

The apps describe their data (:mod:`core.datasets.description`); these modules turn
that description into the three files, so the same facts appear in each.
"""

from core.datasets.archive import StableZip
from core.datasets.card import card_markdown
from core.datasets.croissant import croissant_document
from core.datasets.datapackage import datapackage_document
from core.datasets.description import (
    Config,
    DataFile,
    DatasetDescription,
    Field,
    FileSet,
    data_file,
    data_version,
    file_set,
)
from core.datasets.licenses import DEFAULT_LICENSE, LICENSE_CHOICES, LICENSES, license_info
from core.datasets.writer import metadata_files

__all__ = [
    "DEFAULT_LICENSE",
    "LICENSES",
    "LICENSE_CHOICES",
    "Config",
    "DataFile",
    "DatasetDescription",
    "Field",
    "FileSet",
    "StableZip",
    "card_markdown",
    "croissant_document",
    "data_file",
    "data_version",
    "datapackage_document",
    "file_set",
    "license_info",
    "metadata_files",
]
