"""`python -m bench`: the service against its own graph, LangGraph's server and the Flask design.

One run, one machine, one scripted model (bench/stub.py, fixed latency), one question:

1. `in_process`: the graph without HTTP (bench/peers/inprocess.py, a process of its own);
2. `service_stream` / `service_sync`: `python -m app` (Quart on Hypercorn) as deployed;
3. `langgraph_server`: `langgraph dev` (langgraph-cli[inmem]) serving the same graph;
4. `flask_reference`: the naive design (bench/peers/flask_reference.py);
5. checkpointers: SQLite, PostgreSQL (a scratch `bench_<random>` database), memory.

Writes results.json, results.md and latency.png (to bench/, or bench/out/quick with
--quick). See bench/README.md for the layout: drivers/ (load), peers/ (the other sides),
measure/ (levels, sampling), report/ (outputs), soak/ (the soak test).
"""

from __future__ import annotations

import os
import signal
import tempfile
import time
from pathlib import Path

from bench.environment import BENCH_DIR, child_env, log
from bench.options import parse_args
from bench.report.outputs import write_outputs
from bench.session import run_bench
from bench.state import BenchState


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark with the options of `argv`; return the exit status."""
    args = parse_args(argv)

    def on_sigterm(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_sigterm)
    # The in-process agent of the overhead series is built in this process: the same
    # clean environment as the subprocesses (no service settings, no telemetry).
    clean = child_env({})
    os.environ.clear()
    os.environ.update(clean)
    args.out.mkdir(parents=True, exist_ok=True)
    log_dir = BENCH_DIR / "out" / "logs"
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="bench-") as scratch:
        state = BenchState(args, Path(scratch), log_dir)
        log(f"levels {args.levels}; scratch {scratch}; logs {log_dir}")
        try:
            results = run_bench(state)
        except KeyboardInterrupt:
            log("interrupted; every subprocess was stopped")
            return 130
    results["meta"]["duration_s"] = round(time.monotonic() - started, 1)
    paths = write_outputs(results, args.out)
    log(f"done in {results['meta']['duration_s']} s: " + ", ".join(str(p) for p in paths))
    return 0
