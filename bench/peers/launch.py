"""Starting every side of the benchmark as a subprocess: the stub, our service and its peers."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.environment import BENCH_DIR, PYTHON, child_env, log
from bench.measure.sampler import Sampler
from bench.processes import Child, Processes, free_port, wait_for_line
from bench.report.labels import ADMISSION_PREFIX, STACK_FLOOR
from bench.state import BenchState

LANGGRAPH_CONFIG = BENCH_DIR / "peers" / "langgraph.json"
LANGGRAPH_ASSISTANT = "sql_react_agent"
"""The graph's name in the LangGraph config (the `assistant_id` runs are created with)."""

Started = tuple[Child, str, str]
"""A started server, its base URL and its readiness URL."""


def start_stub(state: BenchState, procs: Processes, sampler: Sampler) -> None:
    """Start the scripted model every side talks to; note its URL and pid in `state`."""
    child, state.stub_url = start_stub_process(state, procs, "stub", state.args.latency_ms)
    sampler.watch("stub", child.pid)
    state.stub_pid = child.pid
    log(f"stub LLM at {state.stub_url} ({state.args.latency_ms} ms per call)")


def start_stub_process(
    state: BenchState, procs: Processes, name: str, latency_ms: float
) -> tuple[Child, str]:
    """Start `python -m bench.stub` with this latency; return it and its OPENAI_BASE_URL."""
    argv = [PYTHON, "-m", "bench.stub", "--latency-ms", str(latency_ms)]
    argv += ["--calls", str(state.args.calls)]
    child = procs.start(name, argv, env=child_env({}), cwd=state.scratch)
    return child, wait_for_line(child, "OPENAI_BASE_URL=", 30)


def _sqlite_side_env(state: BenchState, workdir: Path) -> dict[str, str]:
    return {
        **state.llm_env(),
        "DATA_DIR": str(workdir),
        "CHECKPOINT_DATABASE_URL": f"sqlite:///{workdir / 'checkpoints.db'}",
    }


def start_service(
    state: BenchState,
    procs: Processes,
    *,
    name: str = "service",
    extra_env: dict[str, str] | None = None,
) -> Started:
    """Start `python -m app`; return it, its base URL and its readiness URL.

    `extra_env` adds settings (e.g. RUNS_MAX_ACTIVE, or another stub's OPENAI_BASE_URL).
    """
    port = free_port()
    workdir = state.scratch / name
    workdir.mkdir()
    env = child_env(
        {
            **_sqlite_side_env(state, workdir),
            "HOST": "127.0.0.1",
            "PORT": str(port),
            **(extra_env or {}),
        }
    )
    child = procs.start(name, [PYTHON, "-m", "app"], env=env, cwd=workdir)
    base = f"http://127.0.0.1:{port}"
    return child, base, base + "/health"


def admission_side(limit: int) -> str:
    """Return the results key of our service with RUNS_MAX_ACTIVE=`limit`."""
    return f"{ADMISSION_PREFIX}{limit}"


def start_admission(limit: int) -> Callable[[BenchState, Processes], Started]:
    """Return a starter of `python -m app` with RUNS_MAX_ACTIVE=`limit`."""

    def start(state: BenchState, procs: Processes) -> Started:
        extra = {"RUNS_MAX_ACTIVE": str(limit)}
        return start_service(state, procs, name=admission_side(limit), extra_env=extra)

    return start


def start_langgraph(state: BenchState, procs: Processes) -> Started:
    """Start `langgraph dev` on bench/peers/langgraph.json; return it and its URLs."""
    port = free_port()
    workdir = state.scratch / "langgraph"
    workdir.mkdir()
    env = child_env({**state.llm_env(), "DATA_DIR": str(workdir)})
    cli = shutil.which("langgraph", path=str(Path(PYTHON).parent)) or shutil.which("langgraph")
    if cli is None:
        raise RuntimeError('the `langgraph` command is missing: pip install -e ".[dev,bench]"')
    argv = [
        cli,
        "dev",
        "--config",
        str(LANGGRAPH_CONFIG),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--no-browser",
        "--no-reload",
        "--n-jobs-per-worker",
        str(state.langgraph_jobs),
    ]
    child = procs.start("langgraph_server", argv, env=env, cwd=workdir)
    base = f"http://127.0.0.1:{port}"
    return child, base, base + "/ok"


def start_flask(state: BenchState, procs: Processes) -> Started:
    """Start the Flask reference; return it and its URLs."""
    port = free_port()
    workdir = state.scratch / "flask"
    workdir.mkdir()
    env = child_env(_sqlite_side_env(state, workdir))
    argv = [PYTHON, "-m", "bench.peers.flask_reference", "--port", str(port)]
    child = procs.start("flask_reference", argv, env=env, cwd=workdir)
    base = f"http://127.0.0.1:{port}"
    return child, base, base + "/health"


def start_stack_floor(
    state: BenchState,
    procs: Processes,
    *,
    hold_ms: float | None = None,
    name: str = STACK_FLOOR,
) -> Started:
    """Start the stack's floor (Quart on Hypercorn, no graph); return it and its URLs.

    It holds each stream for `hold_ms` (by default what the model's calls take).
    """
    port = free_port()
    hold = state.args.calls * state.args.latency_ms if hold_ms is None else hold_ms
    argv = [PYTHON, "-m", "bench.peers.stack_floor", "--port", str(port)]
    argv += ["--hold-ms", str(hold), "--calls", str(state.args.calls)]
    child = procs.start(name, argv, env=child_env({}), cwd=state.scratch)
    base = f"http://127.0.0.1:{port}"
    return child, base, base + "/health"


def server_description(name: str, state: BenchState) -> str:
    """Return how the server `name` runs, for results.json and results.md."""
    if name == "langgraph_server":
        return (
            "langgraph dev (langgraph-cli[inmem], uvicorn, in-memory runtime) --no-browser "
            f"--no-reload --n-jobs-per-worker {state.langgraph_jobs} "
            "(its default is 1 run at a time)"
        )
    if name == "flask_reference":
        return (
            "bench/peers/flask_reference.py on Werkzeug's threaded server (threaded=True, a thread "
            "per connection), a new event loop and open_agent_service per request"
        )
    if name == STACK_FLOOR:
        return (
            "bench/peers/stack_floor.py: Quart on Hypercorn with the service's configuration and "
            "uvloop, a stream of the service's frames held for the model calls' time; no graph"
        )
    if name.startswith(ADMISSION_PREFIX):
        limit = name.removeprefix(ADMISSION_PREFIX)
        return (
            f"RUNS_MAX_ACTIVE={limit} python -m app (Quart on Hypercorn, one process, "
            "LOG_LEVEL=INFO): at most that many runs at once, the others queued in FIFO order"
        )
    if name.startswith("service_pg_workers_"):
        workers = name.rsplit("_", 1)[1]
        return (
            f"python -m app --workers {workers} (Quart on Hypercorn, checkpoints, run events "
            "and thread claims on a scratch PostgreSQL database, LOG_LEVEL=INFO)"
        )
    return "python -m app (Quart on Hypercorn, one process, LOG_LEVEL=INFO)"


def _in_process_spec(
    state: BenchState,
    workdir: Path,
    levels: list[list[int]],
    checkpointers: dict[str, str | None],
) -> dict[str, Any]:
    args = state.args
    return {
        "warmup": args.warmup,
        "sequential": 0,  # asked by the overhead series, taking turns with the HTTP questions
        "levels": levels,
        "level_deadline": args.level_deadline,
        "checkpointers": checkpointers,
        "checkpointer_questions": 5 if args.quick else args.sequential,
        "checkpointer_concurrency": 10,
        "checkpointer_concurrent_questions": 50 if not args.quick else 20,
        "stub_pid": state.stub_pid,
        "quiet": {**state.quiet.__dict__, "budget": state.quiet.budget / 2},
    }


def run_in_process(
    state: BenchState,
    procs: Processes,
    postgres_url: str | None,
    postgres_why: str | None,
    *,
    levels: bool = True,
    compare: bool = True,
) -> dict[str, Any]:
    """Run bench/peers/inprocess.py (levels and checkpointers) and return its results.

    `levels`: the graph at each of the run's levels; `compare`: the checkpointers.
    """
    workdir = state.scratch / "in_process"
    workdir.mkdir()
    checkpointers: dict[str, str | None] = {}
    if compare:
        checkpointers = {
            "sqlite": f"sqlite:///{workdir / 'compare-checkpoints.db'}",
            "postgres": postgres_url,
            "memory": "memory",
        }
    spec = _in_process_spec(
        state, workdir, [[c, n] for c, n in state.levels.items()] if levels else [], checkpointers
    )
    spec["unavailable"] = {"postgres": postgres_why}
    return _run_in_process_child(state, procs, workdir, spec, len(state.levels) + 4)


def run_in_process_level(
    state: BenchState,
    procs: Processes,
    concurrency: int,
    total: int,
    round_no: int,
    ours: list[dict[str, Any]],
) -> dict[str, Any]:
    """Run one level of the in-process graph in a process of its own; return its results.

    `ours`: processes of the benchmark (idle meanwhile) whose CPU the child does not
    count as other load: `{"pid", "children"}` or `{"matching": text}`.
    """
    workdir = state.scratch / f"in_process_c{concurrency}_r{round_no}"
    workdir.mkdir()
    spec = {**_in_process_spec(state, workdir, [[concurrency, total]], {}), "ours": ours}
    return _run_in_process_child(state, procs, workdir, spec, 3)


def _run_in_process_child(
    state: BenchState, procs: Processes, workdir: Path, spec: dict[str, Any], deadlines: int
) -> dict[str, Any]:
    """Run `python -m bench.peers.inprocess` on `spec` for at most `deadlines` level deadlines."""
    spec_path = workdir / "spec.json"
    out_path = workdir / "result.json"
    spec_path.write_text(json.dumps(spec))
    env = child_env({**_sqlite_side_env(state, workdir), "LOG_LEVEL": "WARNING"})
    argv = [PYTHON, "-m", "bench.peers.inprocess", str(spec_path), str(out_path)]
    child = procs.start(workdir.name, argv, env=env, cwd=workdir)
    deadline = time.monotonic() + state.args.level_deadline * deadlines
    while child.popen.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    procs.stop(child)
    if child.popen.returncode != 0 or not out_path.is_file():
        raise RuntimeError(f"in-process baseline failed:\n{child.log_tail()}")
    return json.loads(out_path.read_text())
