"""Reading the project's own Python source with ``ast``: the shared ground of the source checks.

The layer rules (test_layers) and the shape rules (test_code_shape) both walk the same files and
resolve the same imports; keeping that here means both checks see the source the same way.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Directories that hold no project source of ours: the virtualenv, run-time data, JS packages.
SKIPPED_DIRS = frozenset({".venv", "var", "node_modules", "migrations", ".git", "__pycache__"})

# The top-level packages that make up the project (the import graph is drawn between these).
PROJECT_PACKAGES = ("analysis", "annotation", "bench", "config", "core", "demo", "studies")


@dataclass(frozen=True)
class Import:
    line: int
    module: str
    # True when the import sits inside a function body, so it runs when called, not when loaded.
    nested: bool
    # For ``from module import a, b``: the imported names, any of which may be a submodule.
    names: tuple[str, ...] = ()
    # For ``import_module(f"pkg.{name}")``: the name is known only when it runs, so the
    # import stands for every module below ``module``.
    below: bool = False

    def candidates(self) -> list[str]:
        """The module itself and every ``module.name`` it may be bringing in."""
        return [self.module] + [f"{self.module}.{name}" for name in self.names]

    def targets(self, modules: set[str]) -> list[str]:
        """The modules in ``modules`` this import depends on.

        ``from pkg import sub`` depends on the submodule, not on what ``pkg/__init__`` holds;
        ``from pkg import name`` of anything else depends on ``pkg`` itself.
        """
        if self.below:
            return sorted(m for m in modules if m.startswith(f"{self.module}."))
        submodules = [m for m in self.candidates()[1:] if m in modules]
        takes_other_names = len(submodules) < len(self.names) or not self.names
        itself = [self.module] if takes_other_names and self.module in modules else []
        return itself + submodules


def project_files(root: Path = ROOT) -> list[Path]:
    """Every .py file of the project, outside the skipped directories."""
    return sorted(
        path
        for path in root.rglob("*.py")
        if not SKIPPED_DIRS.intersection(path.relative_to(root).parts)
    )


def module_name(path: Path, root: Path = ROOT) -> str:
    """The dotted module name of ``path`` (a package's ``__init__`` is the package itself)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def parse(path: Path) -> ast.Module:
    # Cached: the shape and layer checks walk the same few hundred files several times.
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _is_type_checking_block(node: ast.AST) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _resolve(node: ast.ImportFrom, package: str) -> str:
    base = node.module or ""
    if node.level:
        # A relative import: resolve it against the importing module's package.
        parts = package.split(".")
        parent = parts[: len(parts) - node.level + 1]
        base = ".".join(parent + ([base] if base else []))
    return base


def _is_import_module(call: ast.Call) -> bool:
    func = call.func
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
    return name in {"import_module", "__import__"} and bool(call.args)


def _dynamic_import(call: ast.Call, module: str, package: str) -> tuple[str, bool] | None:
    """(module, below) for ``import_module("a.b")`` or ``import_module(f"a.{name}")``.

    A literal name is that module; an f-string stands for every module below its static prefix
    (``__name__`` and ``__package__`` in it are this module's own). Anything else: None.
    """
    arg = call.args[0]
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return arg.value, False
    if not isinstance(arg, ast.JoinedStr):
        return None
    own = {"__name__": module, "__package__": package}
    prefix = ""
    for part in arg.values:
        if isinstance(part, ast.Constant):
            prefix += str(part.value)
        elif isinstance(part.value, ast.Name) and part.value.id in own:
            prefix += own[part.value.id]
        else:
            break
    else:
        return prefix, False
    parent = prefix.rpartition(".")[0]
    return (parent, True) if parent else None


def imports(path: Path, root: Path = ROOT, *, type_checking: bool = True) -> list[Import]:
    """Every import of ``path``, at any level, with relative imports resolved.

    Besides import statements, ``importlib.import_module`` calls count when their name is a
    literal or an f-string with a literal start (see :func:`_dynamic_import`): a registry that
    loads its modules by name depends on them as surely as one that imports them.
    With ``type_checking=False`` imports under ``if TYPE_CHECKING:`` are left out: they never run.
    """
    is_package = path.name == "__init__.py"
    module = module_name(path, root)
    package = module if is_package else module.rpartition(".")[0]
    found: list[Import] = []

    def visit(node: ast.AST, nested: bool) -> None:
        if not type_checking and _is_type_checking_block(node):
            for child in node.orelse:
                visit(child, nested)
            return
        if isinstance(node, ast.Import):
            found.extend(Import(node.lineno, alias.name, nested) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            names = tuple(alias.name for alias in node.names)
            found.append(Import(node.lineno, _resolve(node, package), nested, names))
        elif isinstance(node, ast.Call) and _is_import_module(node):
            dynamic = _dynamic_import(node, module, package)
            if dynamic:
                found.append(Import(node.lineno, dynamic[0], nested, below=dynamic[1]))
        # A class body runs at import time like module code; a function body runs when called.
        inner = nested or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        for child in ast.iter_child_nodes(node):
            visit(child, inner)

    visit(parse(path), nested=False)
    return found


def functions(tree: ast.Module) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    """Every function and method defined anywhere in ``tree``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node


def line_count(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def function_length(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Lines from the first decorator (or ``def``) to the last line of the body."""
    first = min([node.lineno] + [d.lineno for d in node.decorator_list])
    return node.end_lineno - first + 1
