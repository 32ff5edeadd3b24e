"""The targets of issues #11 and #35, computed from the figures of one run: measured, bound, met.

Ratios are taken side by side: with --rounds N, round by round, and their median kept.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from bench.measure.rounds import Figure, SideBySide, cpu_per_question, side_by_side, throughput
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


def _ratio_target(
    what: str,
    compared: SideBySide | None,
    bound: float,
    *,
    at_most: bool = False,
    unit: str = "q/s",
) -> Target:
    """Return the target of a ratio of two sides: at least `bound`, or at most with `at_most`."""
    sign = "≤" if at_most else "≥"
    bound_text = f"{sign} {bound:.2f}×"
    if compared is None:
        return Target(what, "not measured", bound_text, None)
    figures = f"{compared.mine:.1f} / {compared.theirs:.1f} {unit}"
    if len(compared.per_round) > 1:
        rounds = ", ".join(f"{r:.2f}" for r in compared.per_round)
        figures = (
            f"median of {len(compared.per_round)} alternated rounds: {rounds}; medians {figures}"
        )
    met = compared.ratio <= bound if at_most else compared.ratio >= bound
    return Target(what, f"{compared.ratio:.2f}× ({figures})", bound_text, met)


def _at_100(results: dict[str, Any], mine: str, theirs: str, figure: Figure) -> SideBySide | None:
    return side_by_side(results, mine, theirs, 100, figure)


def throughput_targets(results: dict[str, Any]) -> list[Target]:
    """One and two workers at c=100 against the in-process graph, langgraph dev and each other."""
    targets = []
    for side in ("service_stream", "service_pg_workers_1"):
        name = label(side)
        targets += [
            _ratio_target(
                f"{name}, c=100: q/s / in-process graph",
                _at_100(results, side, "in_process", throughput),
                0.95,
            ),
            _ratio_target(
                f"{name}, c=100: q/s / langgraph dev",
                _at_100(results, side, "langgraph_server", throughput),
                1.2,
            ),
        ]
    two, one = "service_pg_workers_2", "service_pg_workers_1"
    return [
        *targets,
        _ratio_target(
            f"{label(two)}, c=100: q/s / 1 worker on PostgreSQL",
            _at_100(results, two, one, throughput),
            1.6,
        ),
        _ratio_target(
            f"{label(two)}, c=100: q/s / langgraph dev",
            _at_100(results, two, "langgraph_server", throughput),
            2.0,
        ),
    ]


def cost_targets(results: dict[str, Any]) -> list[Target]:
    """Issue #35 at c=100: PostgreSQL's CPU and q/s against SQLite's, ours against the peers.

    CPU per question is the server's plus, on PostgreSQL, its database's backends'.
    """
    ours, one, two = "service_stream", "service_pg_workers_1", "service_pg_workers_2"
    langgraph, graph = "langgraph_server", "in_process"
    ms = "ms"
    return [
        _ratio_target(
            f"#35: {label(one)}, c=100: CPU per question (+ PostgreSQL) / {label(ours)}",
            _at_100(results, one, ours, cpu_per_question),
            1.3,
            at_most=True,
            unit=ms,
        ),
        _ratio_target(
            f"#35: {label(one)}, c=100: q/s / {label(ours)}",
            _at_100(results, one, ours, throughput),
            0.8,
        ),
        _ratio_target(
            f"#35: {label(two)}, c=100: q/s / {label(ours)} (one process on SQLite)",
            _at_100(results, two, ours, throughput),
            1.0,
        ),
        _ratio_target(
            f"#35: {label(two)}, c=100: q/s / langgraph dev",
            _at_100(results, two, langgraph, throughput),
            1.3,
        ),
        _ratio_target(
            f"#35: {label(ours)} (default RUNS_MAX_ACTIVE), c=100: q/s / langgraph dev",
            _at_100(results, ours, langgraph, throughput),
            1.25,
        ),
        _ratio_target(
            f"#35: {label(ours)} (default RUNS_MAX_ACTIVE), c=100: CPU per question / "
            "in-process graph",
            _at_100(results, ours, graph, cpu_per_question),
            1.15,
            at_most=True,
            unit=ms,
        ),
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
    targets = (
        throughput_targets(results)
        + cost_targets(results)
        + started_targets(results)
        + slow_targets(results)
    )
    return [asdict(target) for target in targets]


def targets_section(results: dict[str, Any]) -> list[str]:
    """Return the Targets section of results.md (from the figures of this run)."""
    rounds = (results.get("meta") or {}).get("rounds") or 1
    side_by_side_note = (
        f"with {rounds} rounds, the sides alternated round by round, each ratio is the median "
        "of the rounds' ratios (each round's is in the measured column)"
        if rounds > 1
        else "ratios side by side at the same level"
    )
    lines = [
        "## Targets (issues #11 and #35)",
        "",
        f"Computed from the figures of this run ({side_by_side_note}). "
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
