"""The command line of `python -m bench`: levels, model, peers, quiet machine, output."""

from __future__ import annotations

import argparse
from pathlib import Path

from bench.environment import BENCH_DIR

FULL_LEVELS = {1: 30, 10: 60, 100: 200, 500: 500}
"""Concurrency → questions in the level (closed loop: that many in flight until done)."""
QUICK_LEVELS = {1: 10, 10: 30}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bench",
        description="Benchmark the service against its own graph and its peers "
        "(see bench/README.md).",
    )
    parser.add_argument("--quick", action="store_true", help="short form (c=1,10; ~1-2 minutes)")
    parser.add_argument(
        "--concurrency",
        help="comma-separated levels, e.g. 1,10,100,500 (default: 1,10,100,500; quick: 1,10)",
    )
    parser.add_argument(
        "--questions",
        type=int,
        help="questions per level (default: 30/60/200/500 for 1/10/100/500, at least 2 x c)",
    )
    parser.add_argument(
        "--latency-ms", type=float, default=50.0, help="stub latency per model call"
    )
    parser.add_argument(
        "--calls", type=int, choices=(2, 3), default=3, help="model calls per question"
    )
    parser.add_argument("--skip-peers", action="store_true", help="no LangGraph server, no Flask")
    parser.add_argument("--skip-postgres", action="store_true", help="no PostgreSQL checkpointer")
    parser.add_argument(
        "--no-in-process-levels",
        dest="in_process_levels",
        action="store_false",
        help="measure the in-process graph sequentially only",
    )
    parser.add_argument("--sequential", type=int, help="sequential questions for the overhead")
    parser.add_argument("--warmup", type=int, help="warm-up questions per side")
    parser.add_argument("--level-deadline", type=float, help="seconds a level may take")
    parser.add_argument("--langgraph-jobs", type=int, help="langgraph dev --n-jobs-per-worker")
    parser.add_argument("--profile", action="store_true", help="py-spy the service (extra level)")
    parser.add_argument("--profile-concurrency", type=int, default=100)
    parser.add_argument("--profile-seconds", type=int, default=20)
    parser.add_argument(
        "--quiet-threshold",
        type=float,
        default=25.0,
        help="CPU (%% of one core) used by other processes above which a level counts as "
        "disturbed and is run again (the machine may be shared)",
    )
    parser.add_argument(
        "--max-quiet-wait",
        type=float,
        default=60.0,
        help="seconds to wait for an idle machine before each level",
    )
    parser.add_argument(
        "--retries", type=int, default=1, help="extra attempts of a disturbed level"
    )
    parser.add_argument(
        "--quiet-budget",
        type=float,
        help="seconds per process for waiting and retrying in all (default 180; quick: 30)",
    )
    parser.add_argument(
        "--out", type=Path, help="output directory (default bench/, quick: bench/out/quick)"
    )
    return parser


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Read the command line and fill in the defaults of the full or the quick form."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.concurrency:
        concurrencies = [int(c) for c in args.concurrency.split(",") if c.strip()]
        if not concurrencies or min(concurrencies) < 1 or max(concurrencies) > 2000:
            parser.error("--concurrency takes numbers from 1 to 2000")
    else:
        concurrencies = list(QUICK_LEVELS if args.quick else FULL_LEVELS)
    defaults = QUICK_LEVELS if args.quick else FULL_LEVELS
    args.levels = {c: args.questions or defaults.get(c) or max(2 * c, 30) for c in concurrencies}
    args.sequential = args.sequential or (10 if args.quick else 30)
    args.warmup = args.warmup if args.warmup is not None else (2 if args.quick else 3)
    args.level_deadline = args.level_deadline or (60.0 if args.quick else 240.0)
    args.quiet_budget = (
        args.quiet_budget if args.quiet_budget is not None else (16.0 if args.quick else 180.0)
    )
    if args.quick:
        args.max_quiet_wait = min(args.max_quiet_wait, 4.0)
    args.out = (args.out or (BENCH_DIR / "out" / "quick" if args.quick else BENCH_DIR)).resolve()
    return args
