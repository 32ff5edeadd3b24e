"""The command line of `python -m bench`: levels, sides, rounds, model, quiet machine, output."""

from __future__ import annotations

import argparse
from pathlib import Path

from bench.environment import BENCH_DIR
from bench.report.labels import ADMISSION_PREFIX, PEER_SIDES, SCALE_OUT_SIDES, SIDES

FULL_LEVELS = {1: 30, 10: 60, 100: 200, 500: 500}
"""Concurrency → questions in the level (closed loop: that many in flight until done)."""
QUICK_LEVELS = {1: 10, 10: 30}
FULL_RUNS_MAX_ACTIVE = 32
"""RUNS_MAX_ACTIVE of the admission side measured by the full form (--runs-max-active)."""
FULL_SLOW_STREAMS = 2000
"""Streams of the slow-model level in the full form (--slow-streams)."""
SLOW_SIDES = ("service_stream", "service_pg_workers_1", "service_pg_workers_2")
"""Which of our sides the slow level can run on (--slow-side)."""


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
    parser.add_argument(
        "--skip-peers", action="store_true", help="no LangGraph server, no Flask, no stack floor"
    )
    parser.add_argument("--skip-postgres", action="store_true", help="no PostgreSQL checkpointer")
    parser.add_argument(
        "--sides",
        help="comma-separated sides to measure, in the order of the first round, by the "
        f"names results.json uses: {', '.join(SIDES)}, {ADMISSION_PREFIX}N (RUNS_MAX_ACTIVE=N). "
        "Only their levels run: no overhead series, no checkpointer comparison, no "
        "slow-level floor unless stack_floor is named (default: every side)",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="run each level this many times, the sides alternated (odd rounds in order, "
        "even rounds reversed); the report gives each round and the medians, ratios "
        "taken round by round (default 1)",
    )
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
    _admission_and_slow_options(parser)
    return parser


def _admission_and_slow_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--runs-max-active",
        help="comma-separated RUNS_MAX_ACTIVE limits, each measured as one more side of our "
        f"service (stream) at c=100,500 (default: {FULL_RUNS_MAX_ACTIVE} in the full form, "
        "none with --quick; 0 for none)",
    )
    parser.add_argument(
        "--slow-streams",
        type=int,
        help="streams sent at once in the slow-model level (default: "
        f"{FULL_SLOW_STREAMS} in the full form, none with --quick; 0 for none)",
    )
    parser.add_argument(
        "--slow-latency-ms", type=float, default=2000.0, help="stub latency of the slow level"
    )
    parser.add_argument(
        "--slow-side",
        choices=SLOW_SIDES,
        default="service_stream",
        help="which of our sides the slow level runs on (default: one process on SQLite)",
    )
    parser.add_argument(
        "--slow-runs-max-active", type=int, help="RUNS_MAX_ACTIVE of the slow level's server"
    )
    parser.add_argument(
        "--slow-deadline", type=float, default=900.0, help="seconds the slow level may take"
    )
    parser.add_argument(
        "--slow-only",
        action="store_true",
        help="run the slow-model level alone (no other side, no in-process graph)",
    )


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
    explicit_limits = args.runs_max_active is not None
    args.runs_max_active = _limits(parser, args.runs_max_active, args.quick)
    if args.rounds < 1:
        parser.error("--rounds takes a number from 1")
    args.only_sides = args.sides is not None
    try:
        args.sides = resolve_sides(
            args.sides,
            limits=args.runs_max_active if explicit_limits or not args.only_sides else [],
            skip_peers=args.skip_peers,
            skip_postgres=args.skip_postgres,
        )
    except ValueError as exc:
        parser.error(str(exc))
    args.runs_max_active = admission_limits(args.sides)
    if args.slow_streams is None:
        args.slow_streams = 0 if args.quick else FULL_SLOW_STREAMS
    if args.slow_only and not args.slow_streams:
        parser.error("--slow-only needs --slow-streams N (N > 0)")
    args.out = (args.out or (BENCH_DIR / "out" / "quick" if args.quick else BENCH_DIR)).resolve()
    return args


def _limits(parser: argparse.ArgumentParser, text: str | None, quick: bool) -> list[int]:
    """Read --runs-max-active: the limits to measure as sides of their own."""
    if text is None:
        return [] if quick else [FULL_RUNS_MAX_ACTIVE]
    try:
        limits = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        parser.error("--runs-max-active takes whole numbers, e.g. 16,32")
    if any(limit < 0 for limit in limits):
        parser.error("--runs-max-active takes numbers from 0 (0: no extra side)")
    return sorted({limit for limit in limits if limit > 0})


def resolve_sides(
    text: str | None, *, limits: list[int], skip_peers: bool, skip_postgres: bool
) -> list[str]:
    """Return the sides to measure: those of --sides (checked, in its order) or every side.

    `limits` are the RUNS_MAX_ACTIVE sides to add (the full form's, or an explicit
    --runs-max-active's): after ours without --sides, after the named sides with it.

    Raises:
        ValueError: a name that is no side, a side named twice, or one that --skip-peers
            or --skip-postgres leaves out.

    """
    admission = [f"{ADMISSION_PREFIX}{limit}" for limit in limits]
    if text is None:
        after = SIDES.index("service_stream") + 1
        sides = [*SIDES[:after], *admission, *SIDES[after:]]
        left_out = (SCALE_OUT_SIDES if skip_postgres else ()) + (PEER_SIDES if skip_peers else ())
        return [side for side in sides if side not in left_out]
    named = [part.strip() for part in text.split(",") if part.strip()]
    if not named:
        raise ValueError("--sides needs at least one side")
    unknown = [name for name in named if not _is_side(name)]
    if unknown:
        raise ValueError(
            f"--sides: unknown side {', '.join(unknown)}; the sides are "
            f"{', '.join(SIDES)} and {ADMISSION_PREFIX}N (N ≥ 1)"
        )
    twice = sorted({name for name in named if named.count(name) > 1})
    if twice:
        raise ValueError(f"--sides: {', '.join(twice)} named more than once")
    for flag, skipped, left_out in (
        ("--skip-postgres", skip_postgres, SCALE_OUT_SIDES),
        ("--skip-peers", skip_peers, PEER_SIDES),
    ):
        clash = [name for name in named if skipped and name in left_out]
        if clash:
            raise ValueError(f"--sides names {', '.join(clash)}, which {flag} leaves out")
    return [*named, *(side for side in admission if side not in named)]


def admission_limits(sides: list[str]) -> list[int]:
    """Return the RUNS_MAX_ACTIVE limits of the admission sides among `sides`."""
    limits = (int(side.removeprefix(ADMISSION_PREFIX)) for side in sides if _admission(side))
    return sorted(set(limits))


def _admission(name: str) -> bool:
    number = name.removeprefix(ADMISSION_PREFIX)
    return name.startswith(ADMISSION_PREFIX) and number.isdigit() and int(number) > 0


def _is_side(name: str) -> bool:
    return name in SIDES or _admission(name)
