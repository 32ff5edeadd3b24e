"""A measured level: wait for a quiet machine, run it, sample the processes, retry if disturbed.

The benchmark may share its machine with other people's work (a test suite started by
another developer takes a whole core of two). Before each level it waits, within a bound,
until the machine is idle; during the level it counts the CPU used by processes that are
not part of the benchmark (`foreign_cpu_pct`); a level disturbed by more than the
threshold is run again once and the less disturbed attempt is kept. Both are reported.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from bench.drivers.question import Question, Sample
from bench.measure.closed_loop import run_level
from bench.measure.machine import wait_until_quiet
from bench.measure.sampler import Sampler
from bench.measure.stats import summarize


@dataclass(frozen=True)
class Quiet:
    """How hard to try for an undisturbed measurement."""

    threshold_pct: float = 25.0
    """Foreign CPU (% of one core) above which a level counts as disturbed."""
    max_wait: float = 60.0
    """Seconds to wait for a quiet machine before a level."""
    retries: int = 1
    """Extra attempts of a disturbed level."""
    budget: float = 180.0
    """Seconds this process may spend in all on waiting and on extra attempts, so that a
    machine that is never quiet cannot stretch the run without bound."""


_spent = 0.0


def _budget_left(quiet: Quiet) -> float:
    return max(0.0, quiet.budget - _spent)


async def quiet_moment(quiet: Quiet) -> tuple[float, float]:
    """Wait (bounded) until the machine is idle; return (seconds waited, busy %)."""
    global _spent
    limit = min(quiet.max_wait, _budget_left(quiet))
    waited, busy = await asyncio.to_thread(wait_until_quiet, quiet.threshold_pct / 2, limit)
    _spent += waited
    return waited, busy


def db_name(side: str) -> str:
    """Return the sampler's name for the PostgreSQL backends that serve `side`."""
    return f"{side}:db"


def _per_question(cpu_s: float | None, samples: list[Sample]) -> float | None:
    """Server CPU per completed question: hardly moved by a neighbour's load, unlike time."""
    done = sum(1 for s in samples if s.ok)
    return round(1000 * cpu_s / done, 1) if cpu_s is not None and done else None


def _charge(seconds: float) -> None:
    global _spent
    _spent += seconds


async def measured_level(
    ask: Question,
    concurrency: int,
    total: int,
    deadline: float,
    sampler: Sampler,
    quiet: Quiet,
    *,
    server: str = "server",
) -> dict[str, Any]:
    """Run one level (retrying once if disturbed); its stats and the processes' use."""
    best: dict[str, Any] | None = None
    for attempt in range(1, quiet.retries + 2):
        waited, busy = await quiet_moment(quiet)
        sampler.begin()
        samples, wall, missing = await run_level(ask, concurrency, total, deadline)
        window = sampler.end()
        level = {
            "concurrency": concurrency,
            **summarize(samples, wall, missing),
            "server_peak_rss_mb": window.peak_rss_mb.get(server),
            "server_cpu_s": window.cpu_s.get(server),
            "server_cpu_pct": window.cpu_pct.get(server),
            "server_cpu_ms_per_question": _per_question(window.cpu_s.get(server), samples),
            "db_cpu_pct": window.cpu_pct.get(db_name(server)),
            "db_cpu_ms_per_question": _per_question(window.cpu_s.get(db_name(server)), samples),
            "stub_cpu_pct": window.cpu_pct.get("stub"),
            "client_cpu_pct": window.cpu_pct.get("client"),
            "foreign_cpu_pct": window.foreign_cpu_pct,
            "listen_queue_overflows": window.listen_overflows,
            "attempt": attempt,
            "waited_for_quiet_s": waited,
            "busy_before_pct": busy,
        }
        if best is None or level["foreign_cpu_pct"] < best["foreign_cpu_pct"]:
            best = level
        if level["foreign_cpu_pct"] <= quiet.threshold_pct:
            break
        if _budget_left(quiet) < wall:
            print(f"  c={concurrency}: disturbed, but the retry budget is spent", flush=True)
            break
        _charge(wall)
        print(
            f"  c={concurrency}: other processes used {level['foreign_cpu_pct']}% of a core "
            f"during the level (attempt {attempt}); "
            + ("running it again" if attempt <= quiet.retries else "keeping the quieter attempt"),
            flush=True,
        )
    assert best is not None
    best["disturbed"] = best["foreign_cpu_pct"] > quiet.threshold_pct
    return best


async def measured_series(
    asks: dict[str, Question],
    count: int,
    sampler: Sampler,
    quiet: Quiet,
) -> dict[str, dict[str, Any]]:
    """Sequential questions, the `asks` taking turns; stats of each (retried if disturbed).

    Turns share any drift (a growing checkpoint file, a neighbour's load) between them.
    """
    best: dict[str, dict[str, Any]] | None = None
    for attempt in range(1, quiet.retries + 2):
        waited, _ = await quiet_moment(quiet)
        samples: dict[str, list[Sample]] = {name: [] for name in asks}
        sampler.begin()
        for i in range(count):
            for name, ask in asks.items():
                samples[name].append(await ask(i, 0))
        window = sampler.end()
        result = {
            name: {
                **summarize(got, sum(s.total for s in got)),
                "foreign_cpu_pct": window.foreign_cpu_pct,
                "attempt": attempt,
                "waited_for_quiet_s": waited,
            }
            for name, got in samples.items()
        }
        if best is None or window.foreign_cpu_pct < next(iter(best.values()))["foreign_cpu_pct"]:
            best = result
        if window.foreign_cpu_pct <= quiet.threshold_pct:
            break
        if _budget_left(quiet) < window.wall_s:
            break
        _charge(window.wall_s)
        print(
            f"  sequential: other processes used {window.foreign_cpu_pct}% of a core "
            f"(attempt {attempt})",
            flush=True,
        )
    assert best is not None
    for stats in best.values():
        stats["disturbed"] = stats["foreign_cpu_pct"] > quiet.threshold_pct
    return best
