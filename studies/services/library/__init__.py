"""Writes of the chart library: importing benchmarks, generating pairs, editing them."""

from studies.services.library.editing import (
    chart_image_replace,
    chartset_create,
    chartset_delete,
    chartset_delete_problem,
    chartset_update,
    manipulation_type_create,
    pair_delete,
    pair_delete_problem,
    question_update,
    question_validate,
)
from studies.services.library.exporting import chartset_export_zip
from studies.services.library.generating import (
    GENERATE_JOB,
    SYNC_MAX_SPECS,
    Preview,
    chartset_generate,
    chartset_generate_enqueue,
    chartset_generate_new_or_update,
    pair_generate_save,
    pair_preview,
    specs_parse,
)
from studies.services.library.importing import (
    IMPORT_JOB,
    ImportRejected,
    ImportResult,
    chartset_import,
    chartset_import_enqueue,
)
from studies.services.library.pairs import ChartInput, PairInput, WriteSummary, pairs_write
from studies.services.library.uploads import sync_max_bytes, upload_bundle

__all__ = [
    "GENERATE_JOB",
    "IMPORT_JOB",
    "SYNC_MAX_SPECS",
    "ChartInput",
    "ImportRejected",
    "ImportResult",
    "PairInput",
    "Preview",
    "WriteSummary",
    "chart_image_replace",
    "chartset_create",
    "chartset_delete",
    "chartset_delete_problem",
    "chartset_export_zip",
    "chartset_generate",
    "chartset_generate_enqueue",
    "chartset_generate_new_or_update",
    "chartset_import",
    "chartset_import_enqueue",
    "chartset_update",
    "manipulation_type_create",
    "pair_delete",
    "pair_delete_problem",
    "pair_generate_save",
    "pair_preview",
    "pairs_write",
    "question_update",
    "question_validate",
    "specs_parse",
    "sync_max_bytes",
    "upload_bundle",
]
