"""Who may import whom: the layer rules of the design, checked on the source itself."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _imported_modules(path: Path) -> list[tuple[int, str]]:
    """Every module ``path`` imports, at any level (functions included), as (line, dotted name)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                # A relative import: resolve it against the importing module's package.
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([base] if base else []))
            found.append((node.lineno, base))
            # `from annotation import services` names the package in the alias.
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return found


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


def test_the_check_sees_every_way_of_importing_a_service(tmp_path, monkeypatch):
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
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    flagged = sorted({line for line, m in _imported_modules(source) if _reaches_services(m)})
    assert flagged == [1, 2, 3, 5]
