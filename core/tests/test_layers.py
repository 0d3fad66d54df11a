"""Who may import whom: the layer rules of the design, checked on the source itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.tests.source_tree import ROOT, imports


def _imported_modules(path: Path, root: Path = ROOT) -> list[tuple[int, str]]:
    """Every module ``path`` imports, at any level (functions included), as (line, dotted name)."""
    return [(found.line, module) for found in imports(path, root) for module in found.candidates()]


def _reaches_services(module: str) -> bool:
    return "services" in module.split(".")


def selector_files() -> list[Path]:
    return sorted(p for p in ROOT.glob("*/selectors/**/*.py") if ".venv" not in p.parts)


def test_there_are_selectors_to_check():
    # Guards the check below against a glob that silently matches nothing.
    assert {p.relative_to(ROOT).parts[0] for p in selector_files()} >= {"studies", "annotation"}


@pytest.mark.parametrize("path", selector_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_selectors_read_without_importing_services(path):
    offending = [
        f"line {line}: {module}"
        for line, module in _imported_modules(path)
        if _reaches_services(module)
    ]
    assert offending == [], f"{path.relative_to(ROOT)} imports services"


def test_the_check_sees_every_way_of_importing_a_service(tmp_path):
    package = tmp_path / "annotation" / "selectors"
    package.mkdir(parents=True)
    source = package / "sample.py"
    source.write_text(
        "import annotation.services.queue\n"
        "from annotation import services\n"
        "from ..services.imports import x\n"
        "def f():\n"
        "    from studies.services.model_eval import y\n"
        "from annotation.models import Project\n"
    )
    flagged = sorted(
        {line for line, m in _imported_modules(source, tmp_path) if _reaches_services(m)}
    )
    assert flagged == [1, 2, 3, 5]
