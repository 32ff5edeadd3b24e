"""`python -m app --workers N`: N service processes accepting on one listening socket."""

from __future__ import annotations

import logging
import multiprocessing
import signal
from multiprocessing.connection import wait
from multiprocessing.process import BaseProcess
from typing import Any

from hypercorn.config import Config, Sockets

from app.observability.metrics_processes import forget_worker
from app.server.binding import bind_sockets
from app.server.serving import run_event_loop, serve_forever
from config import Settings
from react_agent.databases.urls import database_kind

logger = logging.getLogger(__name__)

STOP_TIMEOUT_MARGIN = 10.0
"""Seconds beyond the shutdown grace the supervisor waits for a worker before killing it."""


def refusal_for_workers(settings: Settings) -> str | None:
    """Return why these settings cannot run `settings.workers` processes, or None if they can.

    Run events, thread claims and thread ids are shared through PostgreSQL only; with
    SQLite or memory each process would keep its own, and a stream resumed on another
    worker, or a second question on a busy thread, would go wrong.
    """
    kind = database_kind(settings.resolved_checkpoint_database_url)
    if settings.workers <= 1 or kind == "postgres":
        return None
    return (
        f"WORKERS={settings.workers} needs the conversations on PostgreSQL, so that every "
        f"worker shares runs, stream events and thread claims; the checkpointer is {kind}. "
        "Set CHECKPOINT_DATABASE_URL=postgresql://… (or run one worker: WORKERS=1)."
    )


def serve_workers(settings: Settings, config: Config) -> int:
    """Bind the socket once, run `settings.workers` processes on it until SIGINT or SIGTERM.

    A worker that dies is replaced; its runs are closed with an error by the survivors
    (their followers get `error` and `end`). On a signal every worker drains as a single
    process does, and the supervisor returns 0 once they have exited.
    """
    sockets = bind_sockets(settings, config)
    context = multiprocessing.get_context("spawn")
    stopping = False

    def stop(signum: int, _frame: Any) -> None:
        nonlocal stopping
        stopping = True
        for process in workers:
            if process.is_alive():
                process.terminate()  # SIGTERM: the worker drains its runs, then exits

    workers: list[BaseProcess] = [_spawn(context, sockets) for _ in range(settings.workers)]
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    while not stopping:
        wait([process.sentinel for process in workers])
        for index, process in enumerate(workers):
            if not process.is_alive() and not stopping:
                if process.pid is not None:
                    forget_worker(settings, process.pid)
                logger.warning(
                    "worker %s exited (%s); starting another", process.pid, process.exitcode
                )
                workers[index] = _spawn(context, sockets)
    for process in workers:
        process.join(settings.shutdown_grace + STOP_TIMEOUT_MARGIN)
        if process.is_alive():
            process.kill()
            process.join()
    return 0


def _spawn(context: Any, sockets: Sockets) -> BaseProcess:
    process = context.Process(target=_worker_main, args=(sockets,), name="app-worker")
    process.start()
    return process


def _worker_main(sockets: Sockets) -> None:
    """Serve on the inherited sockets, with the settings read in this process."""
    run_event_loop(serve_forever(Settings(), sockets))
