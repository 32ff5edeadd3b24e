"""`python -m bench`: the service against its own graph, LangGraph's server and the Flask design.

One run, one machine, one scripted model (bench/stub.py, fixed latency), one question:

1. `in_process`: the graph without HTTP (bench/inprocess.py, a process of its own);
2. `service_stream` / `service_sync`: `python -m app` (Quart on Hypercorn) as deployed;
3. `langgraph_server`: `langgraph dev` (langgraph-cli[inmem]) serving the same graph;
4. `flask_reference`: the naive design (bench/flask_reference.py);
5. checkpointers: SQLite, PostgreSQL (a scratch `bench_<random>` database), memory.

Writes results.json, results.md and latency.png (to bench/, or bench/out/quick with
--quick). See bench/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import importlib.metadata
import importlib.util
import json
import os
import platform
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import AsyncExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx

from bench import load
from bench.measure import Quiet, measured_level, measured_series
from bench.procs import Child, Processes, Sampler, free_port, wait_for_http, wait_for_line

REPO = Path(__file__).resolve().parents[1]
BENCH_DIR = REPO / "bench"
PYTHON = sys.executable
LANGGRAPH_ASSISTANT = "sql_react_agent"
PROFILE_RATE = 100
"""py-spy samples per second."""
POSTGRES_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres"

FULL_LEVELS = {1: 30, 10: 60, 100: 200, 500: 500}
"""Concurrency → questions in the level (closed loop: that many in flight until done)."""
QUICK_LEVELS = {1: 10, 10: 30}

TELEMETRY_OFF = {
    # LangSmith tracing off, whatever the caller's environment says.
    "LANGSMITH_TRACING": "false",
    "LANGSMITH_TRACING_V2": "false",
    "LANGCHAIN_TRACING_V2": "false",
    "LANGCHAIN_TRACING": "false",
    # Should anything try anyway, it reaches a closed loopback port, not the internet.
    "LANGSMITH_ENDPOINT": "http://127.0.0.1:9",
    "LANGCHAIN_ENDPOINT": "http://127.0.0.1:9",
    # langgraph-cli posts each command to an analytics endpoint unless this is "1".
    "LANGGRAPH_CLI_NO_ANALYTICS": "1",
    # langgraph-api checks PyPI for a newer version at start-up unless this is set.
    "LANGGRAPH_NO_VERSION_CHECK": "true",
    "OTEL_SDK_DISABLED": "true",
    "DO_NOT_TRACK": "1",
    "NO_PROXY": "127.0.0.1,localhost",
    "no_proxy": "127.0.0.1,localhost",
}
DROPPED_ENV = (
    "LANGSMITH_API_KEY",
    "LANGCHAIN_API_KEY",
    "LANGGRAPH_CLOUD_LICENSE_KEY",
    "LANGSMITH_CONTROL_PLANE_API_KEY",
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
)
PACKAGES = (
    "langgraph",
    "langgraph-checkpoint",
    "langgraph-checkpoint-sqlite",
    "langgraph-checkpoint-postgres",
    "langgraph-api",
    "langgraph-cli",
    "langgraph-runtime-inmem",
    "langchain-core",
    "langchain-openai",
    "openai",
    "quart",
    "hypercorn",
    "flask",
    "werkzeug",
    "uvicorn",
    "starlette",
    "httpx",
    "aiosqlite",
    "psycopg",
    "psutil",
    "matplotlib",
)


def log(message: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", flush=True)


# --- environment ---------------------------------------------------------------------------


def child_env(extra: dict[str, str]) -> dict[str, str]:
    """Return the caller's environment less the service's settings, telemetry off, + `extra`.

    Every setting the service reads is dropped first, so a developer's shell or `.env`
    cannot change what is measured (subprocesses also run outside the repo, where there
    is no `.env`).
    """
    from config import Settings

    settings_vars = {name.upper() for name in Settings.model_fields}
    env = {
        key: value
        for key, value in os.environ.items()
        if key.upper() not in settings_vars and key not in DROPPED_ENV
    }
    env.update(TELEMETRY_OFF)
    env["PYTHONPATH"] = str(REPO)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(extra)
    return env


def environment_facts() -> dict[str, Any]:
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    git: dict[str, Any] = {}
    try:
        git["commit"] = subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        ).stdout.strip()
        status = subprocess.run(
            ["git", "-C", str(REPO), "status", "--porcelain"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        ).stdout
        git["uncommitted_files"] = len(status.splitlines())
    except (OSError, subprocess.SubprocessError):
        pass
    try:
        import psutil

        memory_gib = round(psutil.virtual_memory().total / 2**30, 1)
    except Exception:
        memory_gib = None
    return {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "cpu_count": os.cpu_count(),
        "cpu_model": _cpu_model(),
        "memory_gib": memory_gib,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "packages": versions,
        "git": git,
    }


def _cpu_model() -> str | None:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


# --- PostgreSQL scratch database -----------------------------------------------------------


@contextmanager
def scratch_postgres(enabled: bool) -> Iterator[tuple[str | None, str | None]]:
    """Yield (url, None) of a new `bench_<random>` database, dropped on exit, or (None, why)."""
    if not enabled:
        yield None, "skipped (--skip-postgres)"
        return
    try:
        import psycopg
    except ImportError as exc:
        yield None, f"psycopg is not installed: {exc}"
        return
    name = f"bench_{secrets.token_hex(4)}"
    try:
        with psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True, connect_timeout=5) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
    except Exception as exc:
        yield None, f"PostgreSQL at {POSTGRES_ADMIN_URL} is not usable: {exc}"
        return
    log(f"created scratch database {name}")
    try:
        yield POSTGRES_ADMIN_URL.rsplit("/", 1)[0] + f"/{name}", None
    finally:
        try:
            with psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True, connect_timeout=5) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            log(f"dropped scratch database {name}")
        except Exception as exc:
            log(f"could not drop scratch database {name}: {exc}")


# --- sides ---------------------------------------------------------------------------------


class Bench:
    """State of one benchmark run."""

    def __init__(self, args: argparse.Namespace, scratch: Path, log_dir: Path) -> None:
        self.args = args
        self.scratch = scratch
        self.log_dir = log_dir
        self.levels: dict[int, int] = args.levels
        self.results: dict[str, Any] = {}
        self.stub_url = ""
        self.stub_pid = 0
        self.quiet = Quiet(
            args.quiet_threshold, args.max_quiet_wait, args.retries, args.quiet_budget
        )

    # LLM stub -------------------------------------------------------------------------------

    def start_stub(self, procs: Processes, sampler: Sampler) -> None:
        """Start the scripted model every side talks to."""
        argv = [PYTHON, "-m", "bench.stub", "--latency-ms", str(self.args.latency_ms)]
        argv += ["--calls", str(self.args.calls)]
        child = procs.start("stub", argv, env=child_env({}), cwd=self.scratch)
        self.stub_url = wait_for_line(child, "OPENAI_BASE_URL=", 30)
        sampler.watch("stub", child.pid)
        self.stub_pid = child.pid
        log(f"stub LLM at {self.stub_url} ({self.args.latency_ms} ms per call)")

    def llm_env(self) -> dict[str, str]:
        """Return the settings that point ChatOpenAI at the stub."""
        return {
            "OPENAI_BASE_URL": self.stub_url,
            "OPENAI_API_KEY": "bench-not-a-secret",
            "LLM_MODEL": "stub-model",
        }

    # in-process baseline --------------------------------------------------------------------

    def run_in_process(
        self, procs: Processes, postgres_url: str | None, postgres_why: str | None
    ) -> dict[str, Any]:
        """Run bench/inprocess.py (levels and checkpointers) and return its results."""
        workdir = self.scratch / "in_process"
        workdir.mkdir()
        spec = {
            "warmup": self.args.warmup,
            "sequential": 0,  # asked by overhead(), taking turns with the HTTP questions
            "levels": [[c, n] for c, n in self.levels.items()]
            if self.args.in_process_levels
            else [],
            "level_deadline": self.args.level_deadline,
            "checkpointers": {
                "sqlite": f"sqlite:///{workdir / 'compare-checkpoints.db'}",
                "postgres": postgres_url,
                "memory": "memory",
            },
            "unavailable": {"postgres": postgres_why},
            "checkpointer_questions": 5 if self.args.quick else self.args.sequential,
            "checkpointer_concurrency": 10,
            "checkpointer_concurrent_questions": 50 if not self.args.quick else 20,
            "stub_pid": self.stub_pid,
            "quiet": {**self.quiet.__dict__, "budget": self.quiet.budget / 2},
        }
        spec_path = workdir / "spec.json"
        out_path = workdir / "result.json"
        spec_path.write_text(json.dumps(spec))
        env = child_env(
            {
                **self.llm_env(),
                "DATA_DIR": str(workdir),
                "CHECKPOINT_DATABASE_URL": f"sqlite:///{workdir / 'checkpoints.db'}",
                "LOG_LEVEL": "WARNING",
            }
        )
        argv = [PYTHON, "-m", "bench.inprocess", str(spec_path), str(out_path)]
        child = procs.start("in_process", argv, env=env, cwd=workdir)
        deadline = time.monotonic() + self.args.level_deadline * (len(self.levels) + 4)
        while child.popen.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        procs.stop(child)
        if child.popen.returncode != 0 or not out_path.is_file():
            raise RuntimeError(f"in-process baseline failed:\n{child.log_tail()}")
        return json.loads(out_path.read_text())

    # servers ----------------------------------------------------------------------------------

    def start_service(self, procs: Processes) -> tuple[Child, str, str]:
        """Start `python -m app`; return it, its base URL and its readiness URL."""
        port = free_port()
        workdir = self.scratch / "service"
        workdir.mkdir()
        env = child_env(
            {
                **self.llm_env(),
                "HOST": "127.0.0.1",
                "PORT": str(port),
                "DATA_DIR": str(workdir),
                "CHECKPOINT_DATABASE_URL": f"sqlite:///{workdir / 'checkpoints.db'}",
            }
        )
        child = procs.start("service", [PYTHON, "-m", "app"], env=env, cwd=workdir)
        base = f"http://127.0.0.1:{port}"
        return child, base, base + "/health"

    def start_langgraph(self, procs: Processes) -> tuple[Child, str, str]:
        """Start `langgraph dev` on bench/langgraph.json; return it and its URLs."""
        port = free_port()
        workdir = self.scratch / "langgraph"
        workdir.mkdir()
        env = child_env({**self.llm_env(), "DATA_DIR": str(workdir)})
        cli = shutil.which("langgraph", path=str(Path(PYTHON).parent)) or shutil.which("langgraph")
        if cli is None:
            raise RuntimeError(
                "the `langgraph` command is missing: pip install -r bench/requirements.txt"
            )
        jobs = self.args.langgraph_jobs or max(self.levels)
        argv = [
            cli,
            "dev",
            "--config",
            str(BENCH_DIR / "langgraph.json"),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--no-browser",
            "--no-reload",
            "--n-jobs-per-worker",
            str(jobs),
        ]
        child = procs.start("langgraph_server", argv, env=env, cwd=workdir)
        base = f"http://127.0.0.1:{port}"
        return child, base, base + "/ok"

    def start_flask(self, procs: Processes) -> tuple[Child, str, str]:
        """Start the Flask reference; return it and its URLs."""
        port = free_port()
        workdir = self.scratch / "flask"
        workdir.mkdir()
        env = child_env(
            {
                **self.llm_env(),
                "DATA_DIR": str(workdir),
                "CHECKPOINT_DATABASE_URL": f"sqlite:///{workdir / 'checkpoints.db'}",
            }
        )
        argv = [PYTHON, "-m", "bench.flask_reference", "--port", str(port)]
        child = procs.start("flask_reference", argv, env=env, cwd=workdir)
        base = f"http://127.0.0.1:{port}"
        return child, base, base + "/health"

    # measuring -------------------------------------------------------------------------------

    async def http_phase(
        self,
        sides: dict[str, tuple[str, Callable[[httpx.AsyncClient], load.Question]]],
        sampler: Sampler,
    ) -> None:
        """Warm every server up, then each level on each server in turn.

        Taking turns level by level spreads whatever else the machine does over all
        sides instead of landing on one of them.
        """
        async with AsyncExitStack() as stack:
            asks: dict[str, load.Question] = {}
            for name, (_, make_ask) in sides.items():
                client = await stack.enter_async_context(load.new_client(max(self.levels)))
                ask = make_ask(client)
                failed = None
                for i in range(self.args.warmup):
                    sample = await ask(i, 0)
                    if not sample.ok:
                        failed = f"warm-up question failed: {sample.error}"
                        break
                if failed:
                    # One broken side must not cost the others their measurements.
                    log(f"{name}: {failed}; left out")
                    self.results[name]["error"] = failed
                    continue
                asks[name] = ask
            if "service_stream" in asks:
                log("overhead: sequential questions, in-process and HTTP in turn")
                series = await self.overhead(sides["service_stream"][0], sampler)
                self.results["in_process"]["astream"] = series["astream"]
                self.results["in_process"]["runner"] = series["runner"]
                self.results["service_stream"]["sequential"] = series["stream"]
                self.results["service_sync"]["sequential"] = series["sync"]
                log(
                    "sequential p50: "
                    + ", ".join(f"{k} {v['total_p50_ms']} ms" for k, v in series.items())
                )
            for concurrency, total in self.levels.items():
                for name, ask in asks.items():
                    level = await measured_level(
                        ask,
                        concurrency,
                        total,
                        self.args.level_deadline,
                        sampler,
                        self.quiet,
                        server=name,
                    )
                    self.results[name].setdefault("levels", {})[str(concurrency)] = level
                    log(
                        f"{name} c={concurrency}: {level['completed']}/{level['questions']} ok, "
                        f"{level['throughput_qps']} q/s, started p50/p99 "
                        f"{level['started_p50_ms']}/{level['started_p99_ms']} ms, total p50/p99 "
                        f"{level['total_p50_ms']}/{level['total_p99_ms']} ms, RSS "
                        f"{level['server_peak_rss_mb']} MB, CPU server {level['server_cpu_pct']}%"
                        f" client {level['client_cpu_pct']}% others {level['foreign_cpu_pct']}%"
                    )
                    if level["errors"]:
                        log(f"  errors: {level['errors']}")

    async def overhead(self, base: str, sampler: Sampler) -> dict[str, dict[str, Any]]:
        """Sequential questions: in-process graph, runner, stream and sync endpoints in turn.

        The in-process agent is built here, in the load generator's process and loop, by
        `open_agent_service` from the same settings as the service's; questions never
        overlap, so each way is measured alone, and taking turns gives all four the same
        moments of the machine.
        """
        from bench.inprocess import astream_question, runner_question
        from config import Settings
        from react_agent.service import open_agent_service

        workdir = self.scratch / "overhead"
        workdir.mkdir()
        settings = Settings(
            _env_file=None,  # type: ignore[call-arg]
            openai_base_url=self.stub_url,
            openai_api_key="bench-not-a-secret",
            llm_model="stub-model",
            data_database_url=None,
            data_dir=workdir,
            checkpoint_database_url=f"sqlite:///{workdir / 'checkpoints.db'}",
        )
        async with open_agent_service(settings) as service, load.new_client(4) as client:
            runner = service.require_runner()
            asks = {
                "astream": astream_question(runner),
                "runner": runner_question(runner),
                "stream": load.service_stream(client, base),
                "sync": load.service_sync(client, base),
            }
            for name, ask in asks.items():
                for i in range(self.args.warmup):
                    sample = await ask(i, 0)
                    if not sample.ok:
                        raise RuntimeError(f"{name}: warm-up question failed: {sample.error}")
            return await measured_series(asks, self.args.sequential, sampler, self.quiet)

    def profile(self, child: Child, base: str) -> dict[str, Any]:
        """py-spy the service through one extra level at --profile-concurrency (not measured)."""
        py_spy = shutil.which("py-spy", path=str(Path(PYTHON).parent)) or shutil.which("py-spy")
        if py_spy is None:
            return {"unavailable": "py-spy is not installed (pip install py-spy)"}
        concurrency = self.args.profile_concurrency
        total = concurrency * 3
        out_dir = BENCH_DIR / "out" / "profile"
        out_dir.mkdir(parents=True, exist_ok=True)
        raw = out_dir / f"service-c{concurrency}.txt"
        svg = out_dir / f"service-c{concurrency}.svg"
        procs_out: dict[str, Any] = {}

        async def load_and_profile() -> None:
            async with load.new_client(concurrency) as client:
                ask = load.service_stream(client, base)
                # Two samplers side by side: collapsed stacks for the summary and a flame
                # graph to look at. --gil: only the thread holding the GIL is sampled, which
                # is where the event loop's Python CPU goes (py-spy's idle detection is not
                # reliable here, so all-thread samples would count waiting threads as busy).
                recorders = [
                    await asyncio.create_subprocess_exec(
                        py_spy,
                        "record",
                        "--pid",
                        str(child.pid),
                        "--rate",
                        str(PROFILE_RATE),
                        "--gil",
                        "--nonblocking",
                        "--full-filenames",
                        "--format",
                        fmt,
                        "--output",
                        str(path),
                        "--duration",
                        str(self.args.profile_seconds),
                        stdout=asyncio.subprocess.DEVNULL,
                        stderr=asyncio.subprocess.PIPE,
                    )
                    for fmt, path in (("raw", raw), ("flamegraph", svg))
                ]
                try:
                    deadline = time.monotonic() + self.args.profile_seconds
                    while (left := deadline - time.monotonic()) > 0:
                        # Questions still running at the deadline are cancelled: this
                        # level is not measured, only profiled.
                        samples, wall, _ = await load.run_level(ask, concurrency, total, left)
                        procs_out.setdefault("levels", []).append(
                            load.summarize(samples, wall)["throughput_qps"]
                        )
                finally:
                    for recorder in recorders:
                        try:
                            _, err = await asyncio.wait_for(recorder.communicate(), 60)
                            procs_out["py_spy_stderr"] = err.decode(errors="replace")[-500:]
                        except TimeoutError:
                            recorder.kill()
                            await recorder.wait()

        asyncio.run(load_and_profile())
        if not raw.is_file():
            return {"unavailable": f"py-spy wrote nothing: {procs_out.get('py_spy_stderr')}"}
        from bench.profile_summary import summarize_collapsed

        summary = summarize_collapsed(
            raw.read_text(), rate=PROFILE_RATE, seconds=self.args.profile_seconds
        )
        return {
            "concurrency": concurrency,
            "seconds": self.args.profile_seconds,
            "mode": "py-spy record --gil --nonblocking: samples of the thread holding the GIL; "
            "samples_per_wall_second_pct is how busy the GIL was",
            "collapsed_stacks": str(raw.relative_to(REPO))
            if raw.is_relative_to(REPO)
            else str(raw),
            "flamegraph": str(svg.relative_to(REPO)) if svg.is_relative_to(REPO) else str(svg),
            "throughput_while_profiled_qps": procs_out.get("levels"),
            **summary,
        }

    # the whole run ----------------------------------------------------------------------------

    def run(self) -> dict[str, Any]:
        """Run every measurement; return the results (always stopping every process)."""
        args = self.args
        results = self.results
        from react_agent.graph.state import new_question_state

        results["meta"] = {
            **environment_facts(),
            "quick": args.quick,
            "latency_ms": args.latency_ms,
            "model_calls_per_question": args.calls,
            "question": load.QUESTION,
            "levels": {str(c): n for c, n in self.levels.items()},
            "sequential_questions": args.sequential,
            "warmup_questions": args.warmup,
            "level_mode": "closed loop: `concurrency` clients each ask again as soon as "
            "their question ends, until the level's questions are all asked",
        }
        with Processes(self.log_dir) as procs, Sampler() as sampler:
            sampler.watch("client", os.getpid(), children=False)
            self.start_stub(procs, sampler)

            with scratch_postgres(not args.skip_postgres) as (pg_url, pg_why):
                log("in-process baseline (and checkpointer comparison)")
                try:
                    in_process = self.run_in_process(procs, pg_url, pg_why)
                except Exception as exc:
                    log(f"in-process baseline failed: {exc}")
                    in_process = {"error": str(exc)[-2000:]}
            checkpointers = in_process.pop("checkpointers", None)
            child_sockets = in_process.pop("outside_sockets", [])
            results["in_process"] = in_process
            results["checkpointer"] = checkpointers or {"error": "in-process run failed"}

            graph_input = {
                "messages": [{"role": "user", "content": load.QUESTION}],
                **new_question_state(),
            }
            servers: list[tuple[str, Callable[[Processes], tuple[Child, str, str]], Any]] = [
                (
                    "service_stream",
                    self.start_service,
                    lambda base: lambda client: load.service_stream(client, base),
                ),
            ]
            if not args.skip_peers:
                servers += [
                    (
                        "langgraph_server",
                        self.start_langgraph,
                        lambda base: (
                            lambda client: load.langgraph_stream(
                                client, base, LANGGRAPH_ASSISTANT, graph_input
                            )
                        ),
                    ),
                    (
                        "flask_reference",
                        self.start_flask,
                        lambda base: lambda client: load.service_stream(client, base),
                    ),
                ]
            log("starting " + ", ".join(name for name, _, _ in servers))
            started: dict[str, tuple[Child, str, str]] = {}
            for name, start, _ in servers:
                try:
                    started[name] = start(procs)
                except Exception as exc:
                    log(f"{name} failed to start: {exc}")
                    results[name] = {"error": str(exc)[-2000:]}
            sides: dict[str, tuple[str, Callable[[httpx.AsyncClient], load.Question]]] = {}
            for name, _, asker in servers:
                if name not in started:
                    continue
                child, base, ready_url = started[name]
                try:
                    wait_for_http(child, ready_url, 120)
                except Exception as exc:
                    log(f"{name} did not come up: {exc}")
                    results[name] = {"error": str(exc)[-2000:]}
                    procs.stop(child)
                    continue
                sampler.watch(name, child.pid)
                sampler.begin()
                idle = sampler.end()
                results[name] = {
                    "server": SERVER_DESCRIPTIONS[name](self),
                    "idle_rss_mb": idle.peak_rss_mb.get(name),
                }
                sides[name] = (base, asker(base))
            if "service_stream" in sides:
                results["service_sync"] = {"server": SERVER_DESCRIPTIONS["service_stream"](self)}
            try:
                asyncio.run(self.http_phase(sides, sampler))
            except Exception as exc:
                log(f"HTTP measurements failed: {type(exc).__name__}: {exc}")
                results["http_phase_error"] = f"{type(exc).__name__}: {exc}"[-2000:]
            if args.profile and "service_stream" in sides:
                log(f"profiling the service at c={args.profile_concurrency} with py-spy")
                try:
                    child, base, _ = started["service_stream"]
                    results["profile"] = self.profile(child, base)
                except Exception as exc:
                    results["profile"] = {"error": f"{type(exc).__name__}: {exc}"}
            for name in list(started):
                sampler.unwatch(name)
                procs.stop(started[name][0])
            results["network"] = {
                "outside_sockets": [*sampler.outside_sockets, *child_sockets],
                "note": "sockets of the servers, the stub, the in-process child and the load "
                "generator whose local or remote address is not loopback, checked every 2 s; "
                "empty means none was seen",
                "telemetry_env": TELEMETRY_OFF,
            }
        results["ratios"] = compute_ratios(results)
        return results


SERVER_DESCRIPTIONS: dict[str, Callable[[Bench], str]] = {
    "service_stream": lambda b: "python -m app (Quart on Hypercorn, one process, LOG_LEVEL=INFO)",
    "langgraph_server": lambda b: (
        "langgraph dev (langgraph-cli[inmem], uvicorn, in-memory runtime) --no-browser "
        f"--no-reload --n-jobs-per-worker {b.args.langgraph_jobs or max(b.levels)} "
        "(its default is 1 run at a time)"
    ),
    "flask_reference": lambda b: (
        "bench/flask_reference.py on Werkzeug's threaded server (threaded=True, a thread "
        "per connection), a new event loop and open_agent_service per request"
    ),
}


# --- ratios --------------------------------------------------------------------------------


def _ratio(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or b == 0:
        return None
    return round(a / b, 3)


def compute_ratios(results: dict[str, Any]) -> dict[str, Any]:
    """Overhead against the in-process graph; throughput and latencies against each peer."""
    ratios: dict[str, Any] = {}
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
    ratios["overhead"] = {
        "definition": "our end-to-end time per sequential question / the same graph's "
        "in-process astream time (the limit is 1.0)",
        **overhead,
    }
    ours = results.get("service_stream", {}).get("levels", {})
    for peer in ("langgraph_server", "flask_reference", "in_process"):
        theirs = results.get(peer, {}).get("levels", {})
        per_level = {}
        for level, mine in ours.items():
            other = theirs.get(level)
            if not other:
                continue
            per_level[level] = {
                "throughput": _ratio(mine.get("throughput_qps"), other.get("throughput_qps")),
                "started_p50": _ratio(mine.get("started_p50_ms"), other.get("started_p50_ms")),
                "started_p99": _ratio(mine.get("started_p99_ms"), other.get("started_p99_ms")),
                "first_node_p50": _ratio(
                    mine.get("first_node_p50_ms"), other.get("first_node_p50_ms")
                ),
                "total_p50": _ratio(mine.get("total_p50_ms"), other.get("total_p50_ms")),
                "total_p99": _ratio(mine.get("total_p99_ms"), other.get("total_p99_ms")),
                "peak_rss": _ratio(mine.get("server_peak_rss_mb"), other.get("server_peak_rss_mb")),
                "cpu_per_question": _ratio(
                    mine.get("server_cpu_ms_per_question"), other.get("server_cpu_ms_per_question")
                ),
            }
        if per_level:
            ratios[f"service_stream_vs_{peer}"] = {
                "definition": "ours / theirs at each concurrency: throughput above 1 and "
                "latencies or RSS below 1 favour our service",
                **per_level,
            }
    checkpointer = results.get("checkpointer") or {}
    sqlite = checkpointer.get("sqlite", {}).get("sequential", {})
    postgres = checkpointer.get("postgres", {}).get("sequential", {})
    memory = checkpointer.get("memory", {}).get("sequential", {})
    ratios["checkpointer"] = {
        "postgres_vs_sqlite_mean": _ratio(
            postgres.get("total_mean_ms"), sqlite.get("total_mean_ms")
        ),
        "sqlite_extra_ms_vs_memory": _delta(sqlite, memory),
        "postgres_extra_ms_vs_memory": _delta(postgres, memory),
        "postgres_extra_ms_vs_sqlite": _delta(postgres, sqlite),
    }
    if "unavailable" in checkpointer.get("postgres", {}):
        ratios["checkpointer"]["postgres_unavailable"] = checkpointer["postgres"]["unavailable"]
    return ratios


def _delta(a: dict[str, Any], b: dict[str, Any]) -> float | None:
    if a.get("total_mean_ms") is None or b.get("total_mean_ms") is None:
        return None
    return round(a["total_mean_ms"] - b["total_mean_ms"], 1)


# --- command line --------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
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


def main(argv: list[str] | None = None) -> int:
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
        bench = Bench(args, Path(scratch), log_dir)
        log(f"levels {args.levels}; scratch {scratch}; logs {log_dir}")
        try:
            results = bench.run()
        except KeyboardInterrupt:
            log("interrupted; every subprocess was stopped")
            return 130
    results["meta"]["duration_s"] = round(time.monotonic() - started, 1)
    from bench.report import write_outputs

    paths = write_outputs(results, args.out)
    log(f"done in {results['meta']['duration_s']} s: " + ", ".join(str(p) for p in paths))
    return 0
