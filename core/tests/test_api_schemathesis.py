"""A bounded fuzz of the whole REST API against its own OpenAPI schema (Schemathesis).

Every operation of /api/schema/ gets generated requests, each sent three times: as an
anonymous client, as a researcher and as an annotator (both with API tokens). Half the
examples use the identifiers of real objects (a study, a project, a chart set, a job...)
so that the answers include real 200s, not only 404s. No answer may be a 5xx or differ
from the schema: its status code must be documented, its media type and body must match.
"""

from __future__ import annotations

import os

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from core.services.tokens import api_token_create

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]
# Bounded so the run adds about a minute to the suite on both set-ups.
EXAMPLES = int(os.environ.get("CHARTROOM_FUZZ_EXAMPLES", "6"))  # more for a deeper run
DEADLINE_MS = 10_000


@pytest.fixture
def api_schema(db):
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    from config.wsgi import application

    # As Django's test client does: requests made straight to the WSGI application must
    # not close the test's connection (and its transaction) when they end.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield schemathesis.openapi.from_wsgi("/api/schema/", application)
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def world(db, researcher, annotator):
    """Real objects the fuzzed paths can name, and each role's token."""
    from studies.tests.factories import make_chart_set, make_study

    study = make_study(researcher, pairs=3, status="live")
    chart_set = make_chart_set(researcher, pairs=2)
    from annotation.services import project_create, project_join

    project = project_create(owner=researcher, title="Fuzzed captions")
    project_join(project=project, annotator=annotator)
    from studies.services.exports import export_request

    jobs = [  # finished (tasks run eagerly here), so each has a file to download
        export_request(study=study, slug=fmt, user=researcher).pk
        for fmt in ("responses-csv", "hmi-json", "hmi-zip", "responses-parquet")
    ]
    return {
        "slugs": {"studies": study.slug, "projects": project.slug, "chart-sets": chart_set.slug},
        "jobs": jobs,
        "headers": {
            "anonymous": {},
            "researcher": {
                "Authorization": f"Token {api_token_create(user=researcher, name='fuzz').key}"
            },
            "annotator": {
                "Authorization": f"Token {api_token_create(user=annotator, name='fuzz').key}"
            },
        },
    }


def _strategy(operation, world):
    """Random requests, invalid ones, and valid ones naming real objects."""
    strategies = [
        operation.as_strategy(GenerationMode.POSITIVE),
        operation.as_strategy(GenerationMode.NEGATIVE),
    ]
    if "{slug}" in operation.path:
        for prefix, slug in world["slugs"].items():
            if f"/{prefix}/{{slug}}" in operation.path:
                strategies.append(
                    operation.as_strategy(GenerationMode.POSITIVE, path_parameters={"slug": slug})
                )
    if operation.path.startswith("/api/v1/jobs/{id}"):
        strategies += [
            operation.as_strategy(GenerationMode.POSITIVE, path_parameters={"id": job})
            for job in world["jobs"]
        ]
    return st.one_of(strategies)


def _fuzz(operation, world) -> str | None:
    """The first failure found on this operation, or None."""

    @given(case=_strategy(operation, world))
    @settings(
        max_examples=EXAMPLES,
        deadline=DEADLINE_MS,
        suppress_health_check=list(HealthCheck),
        derandomize=True,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        verbosity=Verbosity.quiet,
    )
    def run(case):
        for role, headers in world["headers"].items():
            try:
                case.call_and_validate(headers=headers, checks=CHECKS)
            except BaseException as exc:  # schemathesis raises an exception group
                if isinstance(exc, KeyboardInterrupt):
                    raise
                raise AssertionError(f"as {role}: {exc}") from None

    try:
        run()
    except AssertionError as exc:  # every failure is reported, operation by operation
        return f"{operation.method.upper()} {operation.path}: {exc}"
    return None


def test_the_api_answers_as_its_schema_says_for_every_role(api_schema, world):
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) > 100
    failures = [f for f in (_fuzz(op, world) for op in operations) if f]
    assert not failures, "\n\n".join(failures)
