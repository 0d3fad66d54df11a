"""The shape rules of the design, checked on the source: no module over 500 lines, no function
over 80 lines (migrations aside), and no import loops between the project's own modules.

Imports inside functions count: moving an import into a function to dodge a loop leaves the
loop in place (the two modules still need each other). So do modules loaded by name with
``importlib.import_module`` (the answer-type registry loads its types so). Imports under
``if TYPE_CHECKING:`` never run and do not count.
"""

from __future__ import annotations

from pathlib import Path

from core.tests.source_tree import (
    PROJECT_PACKAGES,
    ROOT,
    function_length,
    functions,
    imports,
    line_count,
    module_name,
    parse,
    project_files,
)

MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 80


def _where(path: Path, root: Path) -> str:
    return str(path.relative_to(root))


def long_modules(root: Path = ROOT) -> list[str]:
    return [
        f"{_where(path, root)}: {count} lines"
        for path in project_files(root)
        if (count := line_count(path)) > MAX_MODULE_LINES
    ]


def long_functions(root: Path = ROOT) -> list[str]:
    return [
        f"{_where(path, root)}:{node.lineno} {node.name}: {length} lines"
        for path in project_files(root)
        for node in functions(parse(path))
        if (length := function_length(node)) > MAX_FUNCTION_LINES
    ]


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Module -> the project modules it imports, at any level but ``if TYPE_CHECKING:``."""
    paths = {
        module_name(path, root): path
        for path in project_files(root)
        if path.relative_to(root).parts[0] in PROJECT_PACKAGES
    }
    modules = set(paths)
    return {
        module: {
            target
            for found in imports(path, root, type_checking=False)
            for target in found.targets(modules)
            if target != module
        }
        for module, path in paths.items()
    }


def _components(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm).

    Written out rather than taken from networkx, which the project does not otherwise need.
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def _cycle_through(start: str, component: set[str], graph: dict[str, set[str]]) -> list[str]:
    """A shortest import path from ``start`` back to itself inside ``component``."""
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for nxt in sorted(graph[node] & component):
                if nxt == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return [start, *reversed(path[:-1]), start]
                if nxt not in came_from:
                    came_from[nxt] = node
                    following.append(nxt)
        frontier = following
    raise AssertionError(f"{start} is in a component but on no cycle")


def import_loops(root: Path = ROOT) -> list[str]:
    """One line per loop: the modules that import each other, and one path through them."""
    graph = import_graph(root)
    return [
        " -> ".join(_cycle_through(component[0], set(component), graph))
        + f"  (loop of {len(component)} modules: {', '.join(component)})"
        for component in _components(graph)
    ]


def test_no_module_is_over_500_lines():
    assert long_modules() == [], "split these modules into cohesive smaller ones"


def test_no_function_is_over_80_lines():
    assert long_functions() == [], "split these functions into well-named helpers"


def test_the_project_modules_import_each_other_without_loops():
    assert import_loops() == [], "move what both modules need to the lower one"


def test_the_checks_see_the_source_they_are_meant_to():
    # Guards the checks above against a walk that silently finds nothing.
    paths = project_files()
    names = {module_name(path) for path in paths}
    assert {"core.tests.test_code_shape", "studies.models", "analysis"} <= names
    assert not any({".venv", "migrations"} & set(path.relative_to(ROOT).parts) for path in paths)
    assert len(import_graph()["core.tests.test_code_shape"]) > 0


def test_the_loop_check_counts_imports_inside_functions_but_not_type_checking(tmp_path):
    package = tmp_path / "studies"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "low.py").write_text(
        "def later():\n    from studies.high import thing  # inside a function, still a loop\n"
    )
    (package / "high.py").write_text("from . import low\nthing = 1\n")
    (package / "typed.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from studies.high import thing\n"
        "else:\n"
        "    thing = None\n"
    )
    (package / "high_too.py").write_text("import studies.typed\n")
    assert import_loops(tmp_path) == [
        "studies.high -> studies.low -> studies.high"
        "  (loop of 2 modules: studies.high, studies.low)"
    ]


def test_the_size_checks_name_every_offender(tmp_path):
    package = tmp_path / "bench"
    package.mkdir()
    (package / "big.py").write_text("x = 1\n" * 501)
    body = "".join(f"    y = {n}\n" for n in range(80))
    (package / "long.py").write_text(f"def short():\n    pass\n\n\ndef long():\n{body}")
    migrations = package / "migrations"
    migrations.mkdir()
    (migrations / "0001_initial.py").write_text(f"def long():\n{body}" + "x = 1\n" * 500)
    assert long_modules(tmp_path) == ["bench/big.py: 501 lines"]
    assert long_functions(tmp_path) == ["bench/long.py:5 long: 81 lines"]


def test_the_loop_check_sees_modules_loaded_by_name(tmp_path):
    # A registry that loads its members with import_module depends on them: a member that
    # imports what imports the registry closes a loop the import statements alone do not show.
    registry = tmp_path / "studies" / "kinds"
    registry.mkdir(parents=True)
    (tmp_path / "studies" / "__init__.py").write_text("")
    (registry / "__init__.py").write_text(
        "from importlib import import_module\n"
        "for name in ('one',):\n"
        "    import_module(f'{__name__}.{name}')\n"
    )
    (registry / "one.py").write_text("def later():\n    from studies.user import x\n")
    (tmp_path / "studies" / "user.py").write_text("import studies.kinds\nx = 1\n")
    (tmp_path / "studies" / "literal.py").write_text(
        "import importlib\nimportlib.import_module('studies.user')\n"
    )
    graph = import_graph(tmp_path)
    assert graph["studies.kinds"] == {"studies.kinds.one"}
    assert graph["studies.literal"] == {"studies.user"}
    assert import_loops(tmp_path) == [
        "studies.kinds -> studies.kinds.one -> studies.user -> studies.kinds"
        "  (loop of 3 modules: studies.kinds, studies.kinds.one, studies.user)"
    ]
