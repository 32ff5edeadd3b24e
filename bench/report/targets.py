"""The targets of issue #11, computed from the figures of one run: measured, target, met."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from bench.report.labels import SLOW_FLOOR_KEY, STACK_FLOOR, admission_sides, cell, label

STARTED_P99_TARGET_MS = 50.0
SLOW_RSS_PER_STREAM_TARGET_KB = 50.0


@dataclass
class Target:
    """One target: what is compared, the measured value, the bound and whether it holds."""

    what: str
    measured: str
    target: str
    met: bool | None
    """None when a figure it needs was not measured in this run."""
    floor: str = "–"
    """The same figure for the stack's floor (Quart on Hypercorn, no graph) in this run."""


def _level(results: dict[str, Any], side: str, concurrency: int) -> dict[str, Any]:
    return ((results.get(side) or {}).get("levels") or {}).get(str(concurrency)) or {}


def _qps(results: dict[str, Any], side: str, concurrency: int = 100) -> float | None:
    return _level(results, side, concurrency).get("throughput_qps")


def _ratio_target(what: str, mine: float | None, theirs: float | None, at_least: float) -> Target:
    if mine is None or not theirs:
        return Target(what, "not measured", f"≥ {at_least:.2f}×", None)
    ratio = mine / theirs
    measured = f"{ratio:.2f}× ({mine:.1f} / {theirs:.1f} q/s)"
    return Target(what, measured, f"≥ {at_least:.2f}×", ratio >= at_least)


def throughput_targets(results: dict[str, Any]) -> list[Target]:
    """One and two workers at c=100 against the in-process graph, langgraph dev and each other."""
    in_process = _qps(results, "in_process")
    langgraph = _qps(results, "langgraph_server")
    one_pg = _qps(results, "service_pg_workers_1")
    two_pg = _qps(results, "service_pg_workers_2")
    targets = []
    for side in ("service_stream", "service_pg_workers_1"):
        mine = _qps(results, side)
        name = label(side)
        targets += [
            _ratio_target(f"{name}, c=100: q/s / in-process graph", mine, in_process, 0.95),
            _ratio_target(f"{name}, c=100: q/s / langgraph dev", mine, langgraph, 1.2),
        ]
    two = label("service_pg_workers_2")
    return [
        *targets,
        _ratio_target(f"{two}, c=100: q/s / 1 worker on PostgreSQL", two_pg, one_pg, 1.6),
        _ratio_target(f"{two}, c=100: q/s / langgraph dev", two_pg, langgraph, 2.0),
    ]


def started_targets(results: dict[str, Any]) -> list[Target]:
    """Time to `started` p99 at c=500, for every side of ours measured there."""
    sides = [
        "service_stream",
        *admission_sides(results),
        "service_pg_workers_1",
        "service_pg_workers_2",
    ]
    targets = []
    bound = f"≤ {STARTED_P99_TARGET_MS:.0f} ms"
    floor_p99 = _level(results, STACK_FLOOR, 500).get("started_p99_ms")
    floor = "–" if floor_p99 is None else f"{floor_p99:.0f} ms"
    for side in sides:
        if side != "service_stream" and not results.get(side):
            continue
        p99 = _level(results, side, 500).get("started_p99_ms")
        what = f"{label(side)}, c=500: started p99"
        if p99 is None:
            targets.append(Target(what, "not measured", bound, None, floor))
        else:
            met = p99 <= STARTED_P99_TARGET_MS
            targets.append(Target(what, f"{p99:.0f} ms", bound, met, floor))
    return targets


def slow_targets(results: dict[str, Any]) -> list[Target]:
    """Check the slow-model level: every stream completed, RSS per open stream, flat FDs."""
    slow = results.get("slow_streams") or {}
    streams = slow.get("streams")
    what = f"slow model, {cell(streams)} streams at once"
    if not slow or "completed" not in slow:
        reason = "not measured" if not slow else f"failed: {str(slow.get('error'))[:60]}"
        return [
            Target(f"{what}: completed", reason, "100 %", None),
            Target(f"{what}: RSS per open stream", reason, "≤ 50 KB", None),
            Target(f"{what}: file descriptors after / before", reason, "flat", None),
        ]
    completed, questions = slow["completed"], slow["questions"]
    per_stream = slow.get("rss_per_open_stream_kb")
    floor = results.get(SLOW_FLOOR_KEY) or {}
    floor_kb = floor.get("rss_per_open_stream_kb")
    before, after = slow.get("fds_before"), slow.get("fds_after")
    return [
        Target(
            f"{what}: completed",
            f"{completed}/{questions} ({100 * completed / max(1, questions):.1f} %)",
            "100 %",
            completed == questions,
            _completed_cell(floor),
        ),
        Target(
            f"{what}: RSS per open stream",
            "not measured" if per_stream is None else f"{per_stream:.0f} KB",
            f"≤ {SLOW_RSS_PER_STREAM_TARGET_KB:.0f} KB",
            None if per_stream is None else per_stream <= SLOW_RSS_PER_STREAM_TARGET_KB,
            "–" if floor_kb is None else f"{floor_kb:.0f} KB",
        ),
        Target(
            f"{what}: file descriptors after / before",
            f"{cell(after)} / {cell(before)} (peak {cell(slow.get('fds_peak_during'))})",
            f"flat (within {cell(slow.get('fds_flat_tolerance'))})",
            slow.get("fds_flat"),
        ),
    ]


def _completed_cell(slow: dict[str, Any]) -> str:
    if "completed" not in slow:
        return "–"
    return f"{slow['completed']}/{slow['questions']}"


def compute_targets(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Every target of the issue with its measured value, for results.json."""
    targets = throughput_targets(results) + started_targets(results) + slow_targets(results)
    return [asdict(target) for target in targets]


def targets_section(results: dict[str, Any]) -> list[str]:
    """Return the Targets section of results.md (from the figures of this run)."""
    lines = [
        "## Targets (issue #11)",
        "",
        "Computed from the figures of this run (ratios side by side at the same level). "
        "The floor is the same figure for Quart on Hypercorn alone in this run "
        "(bench/peers/stack_floor.py: the service's server configuration holding a stream "
        "of its frames, no graph): what the stack gives before any of the service's work.",
        "",
        "| target | measured | bound | met | floor (no graph) |",
        "|---|---:|---:|:---:|---:|",
    ]
    for target in compute_targets(results):
        met = {True: "met", False: "**not met**", None: "–"}[target["met"]]
        lines.append(
            f"| {target['what']} | {target['measured']} | {target['target']} | {met} "
            f"| {target['floor']} |"
        )
    return [*lines, ""]
