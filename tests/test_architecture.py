"""The rules of docs/ARCHITECTURE.md, checked on the source: import directions, no cycles, sizes."""

from __future__ import annotations

import ast
from itertools import pairwise
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("app", "react_agent", "config", "bench")
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 80
MAX_TOP_LEVEL_AGENT_MODULES = 6
EXEMPT = ("react_agent/sample_data/dataset.py",)  # the sample data itself, as literals


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).with_suffix("")
            parts = relative.parts[:-1] if relative.name == "__init__" else relative.parts
            found[".".join(parts)] = path
    return found


MODULES = _modules()


def _imports(path: Path) -> set[str]:
    """Return the modules of ours that `path` imports, anywhere in it (lazy imports too)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in names if name in MODULES}


GRAPH = {module: _imports(path) for module, path in MODULES.items()}


def _importers(prefix: str, imported: str) -> list[str]:
    return sorted(
        f"{module} -> {target}"
        for module, targets in GRAPH.items()
        if module.startswith(prefix)
        for target in targets
        if target == imported or target.startswith(imported + ".")
    )


def test_the_agent_and_the_config_import_no_web_code():
    for prefix in ("react_agent", "config"):
        assert _importers(prefix, "app") == []
    for module, path in MODULES.items():
        if module.startswith(("react_agent", "config")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            imported = {
                alias.name.split(".")[0]
                for node in ast.walk(tree)
                if isinstance(node, ast.Import)
                for alias in node.names
            } | {
                node.module.split(".")[0]
                for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and node.module
            }
            assert not imported & {"quart", "quart_schema", "hypercorn"}, module


def test_config_imports_nothing_of_ours_but_itself():
    assert _importers("config", "react_agent") == []


def test_routes_import_no_other_route():
    crossings = [
        f"{module} -> {target}"
        for module, targets in GRAPH.items()
        if module.startswith("app.routes.")
        for target in targets
        if target.startswith("app.routes.") and target != module
    ]
    assert crossings == []


def test_runs_and_conversations_do_not_import_each_other():
    assert _importers("react_agent.runs", "react_agent.conversations") == []
    assert _importers("react_agent.conversations", "react_agent.runs") == []


def test_the_sqlite_path_never_reaches_the_postgresql_run_store():
    """Only the opener imports runs/store/postgres, and only when the checkpointer is PostgreSQL."""
    postgres = "react_agent.runs.store.postgres"
    importers = {
        module
        for module, targets in GRAPH.items()
        if not module.startswith(postgres)
        for target in targets
        if target == postgres or target.startswith(postgres + ".")
    }
    assert importers == {"react_agent.runs.store.open"}
    opener = ast.parse(MODULES["react_agent.runs.store.open"].read_text(encoding="utf-8"))
    top_level = {node.module for node in opener.body if isinstance(node, ast.ImportFrom)}
    assert not {module for module in top_level if module and module.startswith(postgres)}


def test_there_is_no_import_cycle_between_modules():
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(GRAPH.get(module, ())):
            # A package's __init__ importing its own modules is not a cycle of ideas.
            if module != target and target.startswith(module + "."):
                continue
            if state.get(target) == 1:
                cycles.append([*path[path.index(target) :], target])
            elif target not in state:
                visit(target, [*path, target])
        state[module] = 2

    for module in sorted(GRAPH):
        if module not in state:
            visit(module, [module])
    assert cycles == []


def _package(module: str) -> str | None:
    """Return the sub-package of app/ or react_agent/ that `module` belongs to, if any."""
    parts = module.split(".")
    if parts[0] not in ("app", "react_agent") or len(parts) < 2:
        return None
    return ".".join(parts[:2]) if (ROOT / parts[0] / parts[1]).is_dir() else None


def test_there_is_no_import_cycle_between_packages():
    """Sub-packages (react_agent.graph, app.asking, ...) depend one way: feature on foundation."""
    edges: dict[str, dict[str, str]] = {}  # package -> imported package -> one module import
    for module, targets in GRAPH.items():
        for target in targets:
            source, imported = _package(module), _package(target)
            if source and imported and source != imported:
                edges.setdefault(source, {}).setdefault(imported, f"{module} -> {target}")
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(package: str, path: list[str]) -> None:
        state[package] = 1
        for imported in sorted(edges.get(package, {})):
            if state.get(imported) == 1:
                loop = [*path[path.index(imported) :], imported]
                cycles.append([edges[a][b] for a, b in pairwise(loop)])
            elif imported not in state:
                visit(imported, [*path, imported])
        state[package] = 2

    for package in sorted(edges):
        if package not in state:
            visit(package, [package])
    assert cycles == []


def test_react_agent_keeps_at_most_six_top_level_modules():
    top = [p.name for p in (ROOT / "react_agent").glob("*.py") if p.name != "__init__.py"]
    assert len(top) <= MAX_TOP_LEVEL_AGENT_MODULES, sorted(top)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_modules_and_functions_stay_short(module: str):
    path = MODULES[module]
    relative = path.relative_to(ROOT).as_posix()
    if relative in EXEMPT:
        pytest.skip("sample data")
    source = path.read_text(encoding="utf-8")
    assert len(source.splitlines()) <= MAX_MODULE_LINES, relative
    long_functions = [
        f"{node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    ]
    assert long_functions == [], relative
