"""The API docs describe operations and shapes for API users: no docstring written for the
code's developers (a base class's, an internal setting's name) reaches them."""

import re

import pytest
import yaml

# Names and markup that only mean something inside the code.
INTERNAL = re.compile(r"CHARTROOM_|Mixin|:param|:func:|:class:|:mod:|\bself\b|``|\.py\b")


def _descriptions(node, where=""):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "description" and isinstance(value, str):
                yield where, value
            else:
                yield from _descriptions(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _descriptions(value, f"{where}[{index}]")


@pytest.fixture(scope="module")
def spec(django_db_blocker):
    from django.test import Client

    with django_db_blocker.unblock():
        response = Client().get("/api/schema/")
    assert response.status_code == 200
    return yaml.safe_load(response.content)


def test_no_schema_description_names_the_code_inside(spec):
    leaks = [(where, text[:120]) for where, text in _descriptions(spec) if INTERNAL.search(text)]
    assert leaks == []


@pytest.mark.parametrize("name", ["SubmitRequest", "SessionState", "Pair"])
def test_the_shapes_once_described_for_developers_are_described_for_users(spec, name):
    description = spec["components"]["schemas"][name]["description"]
    assert "serializer" not in description.lower()
    assert len(description) > 40


def test_the_annotator_operations_carry_no_base_class_description(spec):
    for path in (
        "/api/v1/annotator/projects/{slug}/next/",
        "/api/v1/annotator/assignments/{id}/draft/",
        "/api/v1/annotator/assignments/{id}/skip/",
    ):
        for operation in spec["paths"][path].values():
            assert "URL names a project" not in operation.get("description", "")


def test_the_imports_description_gives_the_size_not_the_setting(spec):
    operation = spec["paths"]["/api/v1/projects/{slug}/imports/"]["post"]
    assert "5 MB" in operation["description"]
    assert "INLINE_BYTES" not in operation["description"]
