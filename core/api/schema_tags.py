"""OpenAPI tags by resource, read from each operation's path.

drf-spectacular tags an operation with the first path segment after the common
prefix, which for /api/v1/... is "v1" for every operation: the docs page was one long
list. Deriving the tag from the path here groups /api/docs/ by resource without
decorating each view, and a new view under a known path is grouped at once. A view
that names its own tags (extend_schema(tags=...)) keeps them.
"""

from __future__ import annotations

PREFIX = "/api/v1/"
DEFAULT_TAG = "v1"  # what drf-spectacular derives for every path under PREFIX

# (name, description), in the order /api/docs/ shows them.
TAGS = [
    ("index", "Where to start: links to the schema, the documentation and the main collections."),
    ("studies", "Chart studies: settings and texts, pairs, attention checks, readiness, status."),
    ("sessions", "A study's participant sessions: monitor, details, releasing an id."),
    ("results", "HMI results, exclusion decisions, comparisons and result exports."),
    ("models", "Model answers to a study's charts: prompts, imports and analyses."),
    ("library", "The chart library: chart sets, pairs, charts, manipulation types, generator."),
    ("projects", "Caption annotation projects: settings, categories, progress."),
    ("items", "A project's caption items, imports and the leases annotators hold."),
    ("quality", "Qualification rounds, gold items, control policy and annotator standing."),
    ("reports", "Agreement reports, aggregated labels and dataset exports."),
    ("annotator", "The annotator's side: projects, qualification rounds, the work queue."),
    ("participate", "The participant's side of a study, for custom front ends."),
    ("jobs", "Background jobs (analyses, exports, imports) and their downloads."),
    ("tokens", "API tokens of the signed-in researcher."),
    ("account", "The signed-in account."),
]

# The segment after /studies/{slug}/ or /projects/{slug}/ -> tag; anything else keeps the parent's.
STUDY_PARTS = {
    "sessions": "sessions",
    "monitor": "sessions",
    "clear-test-sessions": "sessions",
    "results": "results",
    "models": "models",
}
PROJECT_PARTS = {
    "items": "items",
    "imports": "items",
    "leases": "items",
    "quality": "quality",
    "rounds": "quality",
    "gold": "quality",
    "annotators": "quality",
    "report": "reports",
    "exports": "reports",
}
TOP_LEVEL = {"me": "account"}


def resource_tag(path: str) -> str | None:
    """The tag of an operation at ``path``, or None for paths outside the API."""
    if not path.startswith(PREFIX):
        return None
    parts = [p for p in path[len(PREFIX) :].split("/") if p]
    if not parts:
        return None
    top = parts[0]
    sub = parts[2] if len(parts) > 2 else ""
    if top == "studies":
        return STUDY_PARTS.get(sub, "studies")
    if top == "projects":
        return PROJECT_PARTS.get(sub, "projects")
    return TOP_LEVEL.get(top, top)


def tag_operations_by_resource(result, generator, request, public):
    """drf-spectacular postprocessing hook (SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"])."""
    for path, item in result.get("paths", {}).items():
        tag = resource_tag(path)
        for operation in item.values():
            if tag and isinstance(operation, dict) and operation.get("tags") == [DEFAULT_TAG]:
                operation["tags"] = [tag]
    used = {t for item in result.get("paths", {}).values() for op in item.values()
            if isinstance(op, dict) for t in op.get("tags", [])}  # fmt: skip
    result["tags"] = [{"name": n, "description": d} for n, d in TAGS if n in used]
    return result
