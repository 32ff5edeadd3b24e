"""Our service on PostgreSQL with 1 or N workers (`python -m app --workers N`), for scale-out."""

from __future__ import annotations

from collections.abc import Callable

from bench.environment import PYTHON, child_env
from bench.peers.postgres_scratch import scratch_postgres
from bench.processes import Child, Processes, free_port
from bench.report.labels import ADMISSION_PREFIX
from bench.state import BenchState

SCALE_OUT_WORKERS = (1, 2)
"""Worker counts measured on PostgreSQL."""

SCALE_OUT_LEVELS = (100, 500)
"""Concurrency levels the scale-out sides are measured at (when the run has them)."""


def side_name(workers: int) -> str:
    """Return the results key of the PostgreSQL side with `workers` processes."""
    return f"service_pg_workers_{workers}"


def start_service_workers(
    workers: int, *, name: str | None = None, extra_env: dict[str, str] | None = None
) -> Callable[[BenchState, Processes], tuple[Child, str, str]]:
    """Return a starter of `python -m app --workers N` on a scratch PostgreSQL database.

    `name` (default: the side's name) names its process and directory; `extra_env` adds
    settings (e.g. another stub's OPENAI_BASE_URL).
    """
    name = name or side_name(workers)

    def start(state: BenchState, procs: Processes) -> tuple[Child, str, str]:
        url, why = state.cleanup.enter_context(scratch_postgres(True))
        if url is None:
            raise RuntimeError(f"no PostgreSQL for the scale-out sides: {why}")
        state.databases[name] = url.rsplit("/", 1)[-1]
        port = free_port()
        workdir = state.scratch / name
        workdir.mkdir()
        env = child_env(
            {
                **state.llm_env(),
                "DATA_DIR": str(workdir),
                "CHECKPOINT_DATABASE_URL": url,
                "HOST": "127.0.0.1",
                "PORT": str(port),
                **(extra_env or {}),
            }
        )
        argv = [PYTHON, "-m", "app", "--workers", str(workers)]
        child = procs.start(name, argv, env=env, cwd=workdir)
        base = f"http://127.0.0.1:{port}"
        return child, base, base + "/health"

    return start


def is_scale_out_side(name: str) -> bool:
    """Whether `name` is one of the PostgreSQL worker sides."""
    return name.startswith("service_pg_workers_")


def measured_here(name: str, concurrency: int, levels: list[int]) -> bool:
    """Whether side `name` is measured at `concurrency` in a run with these levels.

    The scale-out sides and the RUNS_MAX_ACTIVE sides run only at SCALE_OUT_LEVELS when
    the run has any of them (a --quick run has none, and measures them at its own levels).
    """
    if not (is_scale_out_side(name) or name.startswith(ADMISSION_PREFIX)):
        return True
    wanted = [c for c in levels if c in SCALE_OUT_LEVELS]
    return concurrency in wanted if wanted else True
