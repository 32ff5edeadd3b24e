"""results.md with --rounds N: each round's figures, side by side in the order they ran."""

from __future__ import annotations

from typing import Any

from bench.measure.rounds import cpu_per_question
from bench.report.labels import cell, label


def rounds_section(results: dict[str, Any]) -> list[str]:
    """Return the rounds table (nothing for a run of one round)."""
    meta = results.get("meta") or {}
    orders: dict[str, list[list[str]]] = meta.get("round_orders") or {}
    if (meta.get("rounds") or 1) < 2 or not orders:
        return []
    lines = [
        "",
        f"### Alternated rounds ({meta['rounds']} per level)",
        "",
        "Each level ran once per round, every side in turn, the order reversed every other "
        "round; the rows of section 2 are the medians of these (each figure its own "
        "median), and the Targets' ratios are the medians of the ratios of each round. "
        "CPU ms / question: the server's, plus its PostgreSQL backends' on PostgreSQL.",
        "",
        "| c | round | # | side | done | q/s | CPU ms / question | started p50 / p99 ms "
        "| total p50 / p99 ms | others % |",
        "|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for concurrency, rounds in orders.items():
        for round_no, order in enumerate(rounds, 1):
            for position, side in enumerate(order, 1):
                level = _round_level(results, side, concurrency, round_no)
                if level is None:
                    lines.append(
                        f"| {concurrency} | {round_no} | {position} | {label(side)} "
                        "| failed | | | | | |"
                    )
                    continue
                lines.append(_row(concurrency, round_no, position, side, level))
    return lines


def _round_level(
    results: dict[str, Any], side: str, concurrency: str, round_no: int
) -> dict[str, Any] | None:
    rounds = ((results.get(side) or {}).get("rounds") or {}).get(concurrency) or []
    return next((level for level in rounds if level.get("round") == round_no), None)


def _row(concurrency: str, round_no: int, position: int, side: str, level: dict[str, Any]) -> str:
    server = level.get("server_cpu_ms_per_question")
    db = level.get("db_cpu_ms_per_question")
    cpu = cell(cpu_per_question(level), 1)
    if db is not None and server is not None:
        cpu = f"{server:.1f} + {db:.1f} = {cpu}"
    return (
        f"| {concurrency} | {round_no} | {position} | {label(side)} | "
        f"{level.get('completed')}/{level.get('questions')}"
        f"{'' if level.get('all_completed', True) else ' ⚠'} | "
        f"{cell(level.get('throughput_qps'), 1)} | {cpu} | "
        f"{cell(level.get('started_p50_ms'), 0)} / {cell(level.get('started_p99_ms'), 0)} | "
        f"{cell(level.get('total_p50_ms'), 0)} / {cell(level.get('total_p99_ms'), 0)} | "
        f"{cell(level.get('foreign_cpu_pct'), 0)}{' ⚠' if level.get('disturbed') else ''} |"
    )
