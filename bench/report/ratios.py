"""Ratios of results.json: overhead against the in-process graph, ours against each peer."""

from __future__ import annotations

from typing import Any

from bench.measure.rounds import side_by_side


def _ratio(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or b == 0:
        return None
    return round(a / b, 3)


def compute_ratios(results: dict[str, Any]) -> dict[str, Any]:
    """Overhead against the in-process graph; throughput and latencies against each peer."""
    ratios: dict[str, Any] = {"overhead": _overhead(results)}
    ours = results.get("service_stream", {}).get("levels", {})
    for peer in ("langgraph_server", "flask_reference", "in_process"):
        theirs = results.get(peer, {}).get("levels", {})
        per_level = {
            level: _against(results, peer, int(level)) for level in ours if theirs.get(level)
        }
        if per_level:
            ratios[f"service_stream_vs_{peer}"] = {
                "definition": "ours / theirs at each concurrency: throughput above 1 and "
                "latencies or RSS below 1 favour our service (with --rounds N, the median "
                "of the ratios of each round)",
                **per_level,
            }
    ratios["checkpointer"] = _checkpointer(results.get("checkpointer") or {})
    return ratios


def _overhead(results: dict[str, Any]) -> dict[str, Any]:
    in_process = results.get("in_process", {})
    astream = in_process.get("astream", {})
    runner = in_process.get("runner", {})
    overhead = {}
    for side in ("service_stream", "service_sync"):
        seq = results.get(side, {}).get("sequential", {})
        overhead[side] = {
            "p50_vs_astream": _ratio(seq.get("total_p50_ms"), astream.get("total_p50_ms")),
            "mean_vs_astream": _ratio(seq.get("total_mean_ms"), astream.get("total_mean_ms")),
            "p50_vs_runner": _ratio(seq.get("total_p50_ms"), runner.get("total_p50_ms")),
            "extra_ms_p50": round(seq["total_p50_ms"] - astream["total_p50_ms"], 1)
            if seq.get("total_p50_ms") and astream.get("total_p50_ms")
            else None,
        }
    return {
        "definition": "our end-to-end time per sequential question / the same graph's "
        "in-process astream time (the limit is 1.0)",
        **overhead,
    }


AGAINST = {
    "throughput": "throughput_qps",
    "started_p50": "started_p50_ms",
    "started_p99": "started_p99_ms",
    "first_node_p50": "first_node_p50_ms",
    "total_p50": "total_p50_ms",
    "total_p99": "total_p99_ms",
    "peak_rss": "server_peak_rss_mb",
    "cpu_per_question": "server_cpu_ms_per_question",
}
"""Ratio name → the figure of a level it divides, ours over the peer's."""


def _against(results: dict[str, Any], peer: str, concurrency: int) -> dict[str, float | None]:
    ratios: dict[str, float | None] = {}
    for name, key in AGAINST.items():
        compared = side_by_side(
            results, "service_stream", peer, concurrency, lambda level, key=key: level.get(key)
        )
        ratios[name] = compared.ratio if compared else None
    return ratios


def _checkpointer(checkpointer: dict[str, Any]) -> dict[str, Any]:
    sqlite = checkpointer.get("sqlite", {}).get("sequential", {})
    postgres = checkpointer.get("postgres", {}).get("sequential", {})
    memory = checkpointer.get("memory", {}).get("sequential", {})
    ratios: dict[str, Any] = {
        "postgres_vs_sqlite_mean": _ratio(
            postgres.get("total_mean_ms"), sqlite.get("total_mean_ms")
        ),
        "sqlite_extra_ms_vs_memory": _delta(sqlite, memory),
        "postgres_extra_ms_vs_memory": _delta(postgres, memory),
        "postgres_extra_ms_vs_sqlite": _delta(postgres, sqlite),
    }
    if "unavailable" in checkpointer.get("postgres", {}):
        ratios["postgres_unavailable"] = checkpointer["postgres"]["unavailable"]
    return ratios


def _delta(a: dict[str, Any], b: dict[str, Any]) -> float | None:
    if a.get("total_mean_ms") is None or b.get("total_mean_ms") is None:
        return None
    return round(a["total_mean_ms"] - b["total_mean_ms"], 1)
