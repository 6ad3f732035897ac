"""The package's shape (docs/architecture.md): imports point one way down the layers, no module imports itself
back through others, no file is over 300 lines and no function over 40. Read from the source with ``ast``, the
imports inside functions included; a function's size is its code's, its docstring left out."""

import ast
import re
from pathlib import Path

import pytest

from tests.conftest import REPO

ZOO = REPO / "zoo"

# top to bottom; a module may import its own layer's and lower layers' modules, never a higher layer's
LAYERS = (
    ("zoo.__main__", "zoo.callbacks"),
    ("zoo.sweep", "zoo.compare", "zoo.inference", "zoo.weights"),
    ("zoo.cli",),
    ("zoo.training",),
    ("zoo.runs",),
    ("zoo.tasks",),
    ("zoo.decoding",),
    ("zoo.data",),
    ("zoo.nn",),
    ("zoo.registry", "zoo.messages", "zoo.knobs", "zoo"),
)
MAX_FILE_LINES = 300
MAX_FUNCTION_LINES = 40


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(ZOO.rglob("*.py"))}


def imported(name: str) -> set[str]:
    """The zoo modules ``name`` imports anywhere in its file (a package's ``from zoo.x import y`` names the
    module ``zoo.x.y`` where there is one)."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            module = ".".join([*base, node.module] if node.module else base)
            found |= {f"{module}.{a.name}" if f"{module}.{a.name}" in MODULES else module for a in node.names}
    return {module for module in found if module in MODULES and module != name}


GRAPH = {name: imported(name) for name in MODULES}


def layer(name: str) -> int:
    for depth, owners in enumerate(LAYERS):
        if any(name == owner or name.startswith(owner + ".") for owner in owners if owner != "zoo"):
            return depth
    return len(LAYERS) - 1  # zoo/__init__.py


def test_every_module_has_a_layer():
    base = {name for name in MODULES if name != "zoo" and layer(name) == len(LAYERS) - 1}
    assert base == {"zoo.registry", "zoo.messages", "zoo.knobs"}


def test_no_import_points_up_a_layer():
    upward = [f"{a} -> {b}" for a in GRAPH for b in GRAPH[a] if layer(b) < layer(a)]
    assert not upward, "imports up the layers (docs/architecture.md):\n" + "\n".join(sorted(upward))


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components of more than one module (Tarjan 1972)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for child in sorted(graph[node]):
            if child not in index:
                visit(child)
                low[node] = min(low[node], low[child])
            elif child in on_stack:
                low[node] = min(low[node], index[child])
        if low[node] == index[node]:
            component = []
            while not component or component[-1] != node:
                component.append(stack.pop())
                on_stack.discard(component[-1])
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def package_graph() -> dict[str, set[str]]:
    """Packages (``zoo.cli``, ``zoo.runs``, ...) and the packages they import."""
    def package(name: str) -> str:
        return ".".join(name.split(".")[:2])

    graph: dict[str, set[str]] = {package(name): set() for name in GRAPH}
    for name, targets in GRAPH.items():
        graph[package(name)] |= {package(target) for target in targets} - {package(name)}
    return graph


def test_no_module_imports_itself_back():
    assert not cycles(GRAPH), cycles(GRAPH)


def test_no_package_imports_itself_back():
    assert not cycles(package_graph()), cycles(package_graph())


def test_the_cycle_finder_finds_a_circle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_import_reader_sees_imports_inside_functions(tmp_path):
    functions = [name for name in MODULES if any(
        isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("zoo")
        for function in ast.walk(ast.parse(MODULES[name].read_text()))
        if isinstance(function, ast.FunctionDef) for node in ast.walk(function)
    )]
    assert functions, "no function-level import to check the reader on"
    assert all(GRAPH[name] for name in functions)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_file_over_300_lines(name):
    lines = len(MODULES[name].read_text().splitlines())
    assert lines <= MAX_FILE_LINES, f"{MODULES[name].relative_to(REPO)}: {lines} lines (at most {MAX_FILE_LINES})"


def code_lines(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """A function's lines from ``def`` to its end, its docstring left out (the house's docstrings, with their
    ``Args:``, shapes, ``Raises:`` and sources, are long by design)."""
    lines = function.end_lineno - function.lineno + 1
    first = function.body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        lines -= first.end_lineno - first.lineno + 1
    return lines


def long_functions(path: Path) -> list[str]:
    return [
        f"{path.relative_to(REPO)}:{node.lineno} {node.name}: {code_lines(node)} lines"
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and code_lines(node) > MAX_FUNCTION_LINES
    ]


def test_the_size_rules_count_code_not_docstrings():
    source = 'def f():\n    """One\n    two."""\n    return 1\n'
    assert code_lines(ast.parse(source).body[0]) == 2
    long = "def g():\n" + "    x = 1\n" * 41
    assert code_lines(ast.parse(long).body[0]) == 42


def test_no_function_over_40_lines():
    found = [line for path in MODULES.values() for line in long_functions(path)]
    assert not found, "\n".join(found)


PACKAGES = sorted(path.parent for path in ZOO.glob("*/__init__.py"))


@pytest.mark.parametrize("package", PACKAGES, ids=lambda path: path.name)
def test_each_package_docstring_names_its_modules(package):
    docstring = ast.get_docstring(ast.parse((package / "__init__.py").read_text())) or ""
    unnamed = [path.stem for path in sorted(package.glob("*.py")) if path.stem != "__init__" and not (
        f"``{path.stem}``" in docstring or f":mod:`.{path.stem}`" in docstring)]
    assert not unnamed, f"{package.relative_to(REPO)}/__init__.py does not name: {', '.join(unnamed)}"


def diagram_arrows() -> set[tuple[str, str]]:
    """The solid arrows of docs/architecture.md's Mermaid diagram, as (package, package) of ``zoo``."""
    text = (REPO / "docs" / "architecture.md").read_text()
    diagram = text.split("```mermaid", 1)[1].split("```", 1)[0]
    arrows = set()
    for line in diagram.splitlines():
        if "-->" not in line:
            continue
        source, targets = line.split("-->")
        for target in targets.split("&"):
            names = [re.sub(r"\[.*", "", side).strip() for side in (source, target)]
            arrows.add(tuple("zoo." + name if name != "main" else "zoo.__main__" for name in names))
    return arrows


def test_the_architecture_diagram_shows_the_imports():
    imports = {(a, b) for a, targets in package_graph().items() for b in targets}
    drawn = {("zoo.nn", "zoo.registry"), ("zoo.registry", "zoo.messages")}  # the base layer, drawn once
    shown = {(a, b) for a, b in imports if b not in ("zoo.registry", "zoo.messages", "zoo.knobs") or (a, b) in drawn}
    shown -= {("zoo.callbacks", "zoo.inference")}
    assert diagram_arrows() == shown
