"""langgraph.json at the root opens the service's graph in `langgraph dev` and LangGraph Studio."""

from __future__ import annotations

import ast
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENTRY_POINT = ROOT / "bench" / "peers" / "langgraph_graph.py"


def module_constant(path: Path, name: str) -> object:
    """Return a module-level constant without importing the module (it builds the graph)."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.AnnAssign | ast.Assign):
            targets = [node.target] if isinstance(node, ast.AnnAssign) else node.targets
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                return ast.literal_eval(node.value)
    raise LookupError(name)


def test_the_root_config_names_the_graph_the_benchmark_runs():
    graph_id = module_constant(ENTRY_POINT, "GRAPH_ID")
    root = json.loads((ROOT / "langgraph.json").read_text(encoding="utf-8"))
    bench = json.loads((ROOT / "bench" / "peers" / "langgraph.json").read_text(encoding="utf-8"))
    assert list(root["graphs"]) == list(bench["graphs"]) == [graph_id]
    path, _, attribute = root["graphs"][graph_id].partition(":")
    # One entry point for both: the root's file path is the bench's module.
    assert (ROOT / path).resolve() == ROOT / "bench" / "peers" / "langgraph_graph.py"
    assert bench["graphs"][graph_id] == f"bench.peers.langgraph_graph:{attribute}"
    assert attribute == "graph"
    assert root["dependencies"] == ["."]
