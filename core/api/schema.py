"""OpenAPI post-processing: the error answers every operation can give, documented once.

Views document the answers particular to them (a 409 for a conflict, an import's own
error body). The answers that come from the framework around every view are added here,
each in the one error format, unless the view documented that status itself.
"""

from __future__ import annotations

ERROR_REF = {"$ref": "#/components/schemas/Error"}
ERROR_SCHEMA = {
    "type": "object",
    "properties": {
        "detail": {"type": "string"},
        "errors": {
            "type": "object",
            "additionalProperties": {"type": "array", "items": {"type": "string"}},
        },
    },
    "required": ["detail", "errors"],
}
WRITE_METHODS = {"post", "put", "patch", "delete"}


def _error(description: str) -> dict:
    return {"description": description, "content": {"application/json": {"schema": ERROR_REF}}}


def _requires_sign_in(operation: dict) -> bool:
    # drf-spectacular lists an empty requirement ({}) when anonymous callers are allowed.
    security = operation.get("security")
    return bool(security) and {} not in security


def _standard_errors(path: str, method: str, operation: dict) -> dict[str, dict]:
    errors = {
        # A malformed or revoked token is refused before any permission is considered.
        "401": _error("Not signed in, or the API token is unknown or revoked."),
        "503": _error(
            "The database cannot be reached; try again after the Retry-After header's seconds."
        ),
    }
    parameters = operation.get("parameters", [])
    has_query = any(p.get("in") == "query" for p in parameters)
    # An id in the path beyond any row's is a 400 (core.middleware.ApiErrorMiddleware).
    has_id = any(
        p.get("in") == "path" and p.get("schema", {}).get("type") == "integer" for p in parameters
    )
    if method in WRITE_METHODS or has_query or has_id or "requestBody" in operation:
        errors["400"] = _error("Invalid input; `errors` names each field. Nothing was changed.")
    if _requires_sign_in(operation):
        errors["403"] = _error("Signed in, but this account's role may not do this.")
    # A page past the end is a 404 (a page that is not a number a 400: core.api.pagination).
    paginated = any(p.get("name") == "page" for p in parameters)
    if "{" in path or paginated:
        errors["404"] = _error(
            "No such object, or not one this account may see; or a page past the last."
            if paginated
            else "No such object, or not one this account may see."
        )
    return errors


def add_standard_error_responses(result, generator, request, public):
    """drf-spectacular postprocessing hook (SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"])."""
    result.setdefault("components", {}).setdefault("schemas", {}).setdefault("Error", ERROR_SCHEMA)
    for path, item in result.get("paths", {}).items():
        for method, operation in item.items():
            if method not in {"get", "post", "put", "patch", "delete"}:
                continue
            responses = operation.setdefault("responses", {})
            for status, response in _standard_errors(path, method, operation).items():
                responses.setdefault(status, response)
    return result
