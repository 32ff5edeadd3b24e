"""The rules of docs/ARCHITECTURE.md, checked on the source: import directions, no cycles, sizes."""

from __future__ import annotations

import ast
import re
from itertools import pairwise
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("app", "react_agent", "config", "bench")
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 80
MAX_TOP_LEVEL_AGENT_MODULES = 6
MAX_MODULES_PER_FOLDER = 12
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
    """Return the modules of ours that `path` imports, anywhere in it (lazy imports too).

    Imports under `if TYPE_CHECKING:` are left out: they name types, nothing runs them.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            node.body = []
    names: set[str] = set()
    for node in ast.walk(tree):
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


GRAPH_REACHES = {"graph", "checkpointer", "aget_state", "aupdate_state", "adelete_thread"}
"""What app/ would touch to reach the compiled graph or its checkpointer."""


def test_the_web_layer_reaches_conversations_only_through_the_agent_service():
    """app/ reads, edits and deletes conversations by service.conversations(), never the graph."""
    reaches = [
        f"{module}:{node.lineno} .{node.attr}"
        for module, path in MODULES.items()
        if module.startswith("app.")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute) and node.attr in GRAPH_REACHES
    ]
    assert reaches == []
    for reader in ("thread_index", "continuation"):
        assert _importers("app", f"react_agent.conversations.{reader}") == []


def test_the_one_accept_head_reads_no_quart_request():
    """asking/accept imports no quart (MCP over stdio calls it outside any request)."""
    tree = ast.parse(MODULES["app.asking.accept"].read_text(encoding="utf-8"))
    imported = {
        name.split(".")[0]
        for node in ast.walk(tree)
        for name in (
            [alias.name for alias in node.names]
            if isinstance(node, ast.Import)
            else [node.module or ""]
            if isinstance(node, ast.ImportFrom)
            else []
        )
    }
    assert "quart" not in imported
    reachable, todo = set(), ["app.asking.accept"]
    while todo:
        module = todo.pop()
        if module not in reachable:
            reachable.add(module)
            todo.extend(GRAPH.get(module, ()))
    assert "app.asking.accept_route" not in reachable


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


def _room(module: str) -> str | None:
    """Return the room of `module`: a sub-package or top-level module (config/: one room)."""
    parts = module.split(".")
    if parts[0] == "config":
        return "config"
    return ".".join(parts[:2]) if len(parts) >= 2 else None


def _room_edges() -> dict[str, dict[str, str]]:
    """Return room -> imported room -> one module import behind it."""
    edges: dict[str, dict[str, str]] = {}
    for module, targets in GRAPH.items():
        for target in sorted(targets):
            source, imported = _room(module), _room(target)
            if source and imported and source != imported:
                edges.setdefault(source, {}).setdefault(imported, f"{module} -> {target}")
    return edges


def test_there_is_no_import_cycle_between_rooms():
    """Rooms (react_agent.graph, app.asking, app.http.auth, bench.report, ...) depend one way."""
    edges = _room_edges()
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


GROUPED_FOLDERS = (
    "react_agent/runs",
    "react_agent/graph",
    "react_agent/memory",
    "app/routes",
    "app/asking",
    "react_agent/access",
)
"""Folders grouped by idea into sub-packages (runs: events, admission, execution, store; ...)."""


@pytest.mark.parametrize("top", GROUPED_FOLDERS)
def test_every_folder_of_a_grouped_package_holds_at_most_twelve_modules(top: str):
    """A grouped folder and each of its sub-packages hold twelve modules at most: none flat."""
    folders = {path.parent for path in (ROOT / top).rglob("*.py")}
    crowded = {
        folder.relative_to(ROOT).as_posix(): count
        for folder in folders
        if (count := len([p for p in folder.glob("*.py") if p.name != "__init__.py"]))
        > MAX_MODULES_PER_FOLDER
    }
    assert crowded == {}


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


ARCHITECTURE = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")


def _code_block_after(heading: str) -> list[str]:
    """Return the lines of the first ``` block after `heading` in ARCHITECTURE.md."""
    rest = ARCHITECTURE.split(heading, 1)[1]
    return rest.split("```", 2)[1].strip("\n").splitlines()


def _listed_rooms() -> set[str]:
    """Return the paths "The rooms" lists (`app/asking`, `react_agent/errors.py`, ...)."""
    listed: set[str] = set()
    parents: list[str] = []
    for line in _code_block_after("## The rooms"):
        indent = len(line) - len(line.lstrip(" "))
        names = re.match(r"((?:[\w.]+/?(?:, )?)+)(?:\s|$)", line.lstrip(" "))
        if indent > 8 or not names:
            continue  # a description's next line
        parents = parents[: indent // 2]
        for name in names.group(1).split(", "):
            listed.add("/".join([*parents, name.rstrip("/")]))
        if names.group(1).endswith("/"):
            parents.append(names.group(1).rstrip("/"))
    return listed


def _rooms_on_disk(top: str) -> set[str]:
    """Return the folders holding Python (or the page's files) and top-level modules of `top`."""
    found = {
        path.parent.relative_to(ROOT).as_posix()
        for path in (ROOT / top).rglob("*.py")
        if "__pycache__" not in path.parts
    }
    found |= {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / top).glob("*.py")
        if path.name not in ("__init__.py", "__main__.py")
    }
    return found - {top}


def test_every_room_listed_exists_and_every_room_on_disk_is_listed():
    listed = _listed_rooms()
    assert sorted(room for room in listed if not (ROOT / room).exists()) == []
    on_disk = _rooms_on_disk("app") | _rooms_on_disk("react_agent") | {"config", "bench"}
    assert sorted(on_disk - listed) == [], "rooms missing from ARCHITECTURE.md's The rooms"


def test_every_bench_room_is_in_the_bench_readme_layout():
    layout = (ROOT / "bench" / "README.md").read_text(encoding="utf-8").split("## Layout")[1]
    rooms = sorted(path.parent.name for path in (ROOT / "bench").glob("*/__init__.py"))
    assert [room for room in rooms if f"bench/{room}/" not in layout] == []


def _floors() -> dict[str, int]:
    """Return room -> its line in "Packages on packages" (the foundation is line 0)."""
    floors: dict[str, int] = {}
    top = ""
    for number, line in enumerate(_code_block_after("### Packages on packages")):
        top = line[:13].strip() or top
        names = re.split(r"\s{3,}|\(", line[13:], maxsplit=1)[0]
        for name in re.split(r"[·,]", names):
            if name.strip():
                floors[f"{top}.{name.strip()}"] = number
    return floors


def test_each_room_imports_only_rooms_on_the_lines_above_it():
    floors = _floors()
    for top in ("app", "react_agent"):
        rooms = {_room(module) for module in MODULES if module.startswith(top + ".")}
        assert sorted(rooms - set(floors)) == [], f"{top} rooms missing from the floors"
    wrong = [
        f"{module} -> {target}"
        for source, imported in _room_edges().items()
        for target_room, module_import in imported.items()
        for module, target in [module_import.split(" -> ")]
        if source in floors and target_room in floors and floors[target_room] >= floors[source]
    ]
    assert wrong == [], "an import not down the floors of ARCHITECTURE.md"


def test_nothing_of_the_service_imports_the_benchmark():
    for prefix in ("app", "react_agent", "config"):
        assert _importers(prefix, "bench") == []


ERROR_BODY_MAKERS = {"error_envelope", "openai_error_body"}
"""The two functions that make an error's body."""
ERROR_BODY_PLACES = {
    "app.http.errors": "`app/http/errors.py`",
    "app.server.asgi": "`app/server/asgi.send_error`",
    "app.streaming.events": "`app/streaming/events.error_event_envelope`",
    "app.openai_compat.routes": "`app/openai_compat/routes.py`",
}
"""The modules that call them, as ARCHITECTURE.md names them ("What may import what")."""


def test_the_places_that_make_error_bodies_are_the_four_named():
    callers = set()
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", getattr(node.func, "attr", None))
                if name in ERROR_BODY_MAKERS:
                    callers.add(module)
    assert sorted(callers) == sorted(ERROR_BODY_PLACES)
    assert [text for text in ERROR_BODY_PLACES.values() if text not in ARCHITECTURE] == []


def _rooms_of(tokens: list[str], top: str) -> set[str]:
    """Return the rooms the backticked `tokens` of a table row name (`graph/hooks.py`: graph)."""
    rooms = set()
    for token in tokens:
        parts = re.split(r"[/.]", token)
        if parts[0] in ("app", "react_agent"):
            rooms.add(".".join(parts[:2]))
        else:
            rooms.add("config" if parts[0] == "config" else f"{top}.{parts[0]}")
    return rooms


def _may_import() -> dict[str, tuple[set[str], set[str]]]:
    """Return room -> (the rooms it may import, the rooms it may not) from ARCHITECTURE.md."""
    section = ARCHITECTURE.split("## What may import what", 1)[1].split("Layers point", 1)[0]
    rows: dict[str, tuple[set[str], set[str]]] = {}
    for line in (line for line in section.splitlines() if line.startswith("| `")):
        _, rooms, allowed, _ = line.split("|")
        top = re.findall(r"`(\w+)", rooms)[0]
        allowed, _, refused = allowed.partition(" — not ")
        names = _rooms_of(re.findall(r"`([^`]+)`", rooms), top)
        may = _rooms_of(re.findall(r"`([^`]+)`", allowed), top) | names
        may_not = _rooms_of(re.findall(r"`([^`]+)`", refused), top)
        rows.update({name: (may, may_not) for name in names})
    return rows


def test_each_room_imports_only_what_its_row_in_architecture_names():
    rows = _may_import()
    packages = {_room(m) for m in MODULES if m.startswith("react_agent.") and m.count(".") > 1}
    assert sorted(packages - set(rows)) == [], "react_agent packages without a row"
    wrong = []
    for room, (may, may_not) in sorted(rows.items()):
        for imported, module_import in _room_edges().get(room, {}).items():
            allowed = imported in may or f"{imported.split('.')[0]}.*" in may
            if not allowed or imported in may_not:
                wrong.append(module_import)
    assert wrong == []
