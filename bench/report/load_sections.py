"""results.md sections on load: admission control (RUNS_MAX_ACTIVE) and the slow-model level."""

from __future__ import annotations

from typing import Any

from bench.report.labels import (
    ADMISSION_PREFIX,
    SLOW_FLOOR_KEY,
    admission_sides,
    cell,
    side_levels,
)


def admission_table(results: dict[str, Any]) -> list[str]:
    """Return section 5: our service without and with RUNS_MAX_ACTIVE, level by level."""
    limited = admission_sides(results)
    if not limited:
        return []
    lines = [
        "",
        "## 5. Admission control: RUNS_MAX_ACTIVE",
        "",
        "Our service (stream, one process, SQLite) with its default RUNS_MAX_ACTIVE (auto: "
        "16 per core, raised while the CPU has room) and with RUNS_MAX_ACTIVE=N: at most N "
        "runs at once, the others queued in FIFO order (their stream gets `started` at once, "
        "then a `__queued__` progress event). q/s ratio: against the default at the same level.",
        "",
        "| RUNS_MAX_ACTIVE | c | done | q/s | q/s / default | started p50 / p99 ms "
        "| total p50 / p99 ms | server CPU ms / question | others % |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    base = side_levels(results, "service_stream")
    for side in ("service_stream", *limited):
        limit = side.removeprefix(ADMISSION_PREFIX) if side in limited else "auto (default)"
        for key, level in side_levels(results, side).items():
            if side in limited or any(key in side_levels(results, s) for s in limited):
                theirs = (base.get(key) or {}).get("throughput_qps")
                mine = level.get("throughput_qps")
                ratio = round(mine / theirs, 2) if mine is not None and theirs else None
                lines.append(
                    f"| {limit} | {level['concurrency']} | "
                    f"{level['completed']}/{level['questions']}"
                    f"{'' if level.get('all_completed') else ' ⚠'} | "
                    f"{cell(mine, 1)} | {cell(ratio, 2)} | "
                    f"{cell(level.get('started_p50_ms'), 0)} / "
                    f"{cell(level.get('started_p99_ms'), 0)} | "
                    f"{cell(level.get('total_p50_ms'), 0)} / "
                    f"{cell(level.get('total_p99_ms'), 0)} | "
                    f"{cell(level.get('server_cpu_ms_per_question'), 1)} | "
                    f"{cell(level.get('foreign_cpu_pct'), 0)}"
                    f"{' ⚠' if level.get('disturbed') else ''} |"
                )
    return lines


def slow_section(results: dict[str, Any]) -> list[str]:
    """Return section 6: the slow-model level (thousands of streams open at once)."""
    slow = results.get("slow_streams")
    if not slow:
        return []
    lines = [
        "",
        f"## 6. Slow model: {slow.get('streams')} streams at once, "
        f"{cell(slow.get('latency_ms'))} ms per model call",
        "",
        f"`{slow.get('server')}` (`{slow.get('side')}`, RUNS_MAX_ACTIVE="
        f"{slow.get('runs_max_active')}), a stub of its own; every stream sent at once, each "
        f"a new conversation, read to `end` ({slow.get('model_calls_per_question')} model "
        "calls each). RSS and file descriptors are of the server's whole process tree; "
        "RSS per open stream = (peak RSS − RSS before the level) / most streams open at "
        "once. FDs after: once the client closed its connections and the count stayed "
        "steady for 6 s (past Hypercorn's 5 s keep-alive), then one more question (which "
        "lets the server's model client close its expired keep-alive connections) and "
        "steady again.",
        "",
    ]
    if "completed" not in slow:
        return [*lines, f"Failed: {slow.get('error')}"]
    floor = results.get(SLOW_FLOOR_KEY) or {}
    floor_rows = _slow_rows(floor) if "completed" in floor else []
    if floor_rows:
        lines += [
            "The floor: the same level on Quart on Hypercorn alone (bench/peers/stack_floor.py, "
            "the service's server configuration), each stream held for the model calls' time "
            "with no graph.",
            "",
            "| figure | ours | floor (no graph) |",
            "|---|---:|---:|",
        ]
        for (name, value), (_, floor_value) in zip(_slow_rows(slow), floor_rows, strict=True):
            lines.append(f"| {name} | {value} | {floor_value} |")
    else:
        lines += ["| figure | value |", "|---|---:|"]
        lines += [f"| {name} | {value} |" for name, value in _slow_rows(slow)]
    if slow.get("errors"):
        lines.append("")
        lines.append("Errors: " + "; ".join(f"{k} ×{v}" for k, v in slow["errors"].items()))
    return lines


def _slow_rows(slow: dict[str, Any]) -> list[tuple[str, str]]:
    """Return the rows (figure, value) of one slow-model level."""
    kinds = slow.get("fds_by_kind") or {}
    idle = kinds.get("idle") or {}
    return [
        ("completed", f"{slow['completed']}/{slow['questions']}"),
        (
            "started p50 / p99 ms (completed streams)",
            _pair(slow, "started_p50_ms", "started_p99_ms"),
        ),
        (
            "started p50 / p99 ms (all streams that got it)",
            _pair(slow, "started_all_p50_ms", "started_all_p99_ms"),
        ),
        ("first node p50 / p99 ms", _pair(slow, "first_node_p50_ms", "first_node_p99_ms")),
        ("total p50 / p99 ms", _pair(slow, "total_p50_ms", "total_p99_ms")),
        (
            "level wall time s / q/s",
            f"{cell(slow.get('wall_s'), 1)} / {cell(slow.get('throughput_qps'), 1)}",
        ),
        ("most streams open at once", cell(slow.get("peak_open_streams"))),
        ("server RSS before / peak MB", _pair(slow, "rss_before_mb", "server_peak_rss_mb", 1)),
        ("RSS per open stream KB", cell(slow.get("rss_per_open_stream_kb"), 1)),
        (
            "server FDs before / peak during / after",
            f"{cell(slow.get('fds_before'))} / {cell(slow.get('fds_peak_during'))} / "
            f"{cell(slow.get('fds_after'))} ({'flat' if slow.get('fds_flat') else 'not flat'})",
        ),
        (
            "server FDs idle after the level (before the extra question)",
            f"{cell(idle.get('total'))}, of which {cell(idle.get('model_connections'))} "
            "keep-alive connections to the model",
        ),
        (
            "CPU server / stub / client %",
            f"{cell(slow.get('server_cpu_pct'), 0)} / {cell(slow.get('stub_cpu_pct'), 0)} / "
            f"{cell(slow.get('client_cpu_pct'), 0)}",
        ),
        ("others % (CPU of processes outside the benchmark)", cell(slow.get("foreign_cpu_pct"))),
        ("listen-queue overflows", cell(slow.get("listen_queue_overflows"))),
    ]


def _pair(entry: dict[str, Any], a: str, b: str, digits: int = 0) -> str:
    return f"{cell(entry.get(a), digits)} / {cell(entry.get(b), digits)}"
