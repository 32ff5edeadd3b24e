"""`python -m app --workers N`: N service processes accepting on one listening socket."""

from __future__ import annotations

import logging
import multiprocessing
import signal
import sys
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any

from hypercorn.config import Config, Sockets

from app.observability.metrics_processes import forget_worker
from app.server.binding import bind_sockets
from app.server.opening import StartupFailure
from app.server.serving import run_event_loop, serve_forever
from config import Settings
from react_agent.databases.urls import database_kind
from react_agent.errors import ConfigurationError

logger = logging.getLogger(__name__)

STOP_TIMEOUT_MARGIN = 10.0
"""Seconds beyond the shutdown grace the supervisor waits for a worker before killing it."""


class WorkerStartupFailure(Exception):
    """A worker could not open the service; the supervisor stopped them all.

    Args:
        line: The worker's one line (a ConfigurationError's detail, a StartupFailure).
        exit_code: The status `python -m app` exits with (2: a setting, 1: other).

    """

    def __init__(self, line: str, exit_code: int) -> None:
        super().__init__(line)
        self.line = line
        self.exit_code = exit_code


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

    A worker that dies once it has opened the service is replaced; its runs are closed
    with an error by the survivors (their followers get `error` and `end`). A worker that
    cannot open the service stops them all: the same settings would fail every worker
    again. On a signal every worker drains as a single process does, and the supervisor
    returns 0 once they have exited.

    Raises:
        WorkerStartupFailure: A worker could not open the service (its one line).

    """
    sockets = bind_sockets(settings, config)
    context = multiprocessing.get_context("spawn")
    reports, report_writer = context.Pipe(duplex=False)
    stopping = False
    opened: set[int] = set()
    failure: WorkerStartupFailure | None = None

    def stop(signum: int, _frame: Any) -> None:
        nonlocal stopping
        stopping = True
        for process in workers:
            if process.is_alive():
                process.terminate()  # SIGTERM: the worker drains its runs, then exits

    def spawn() -> BaseProcess:
        return _spawn(context, sockets, report_writer)

    workers: list[BaseProcess] = [spawn() for _ in range(settings.workers)]
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    while not stopping:
        wait([reports, *(process.sentinel for process in workers)])
        while reports.poll():
            report = reports.recv()
            if report[0] == "open":
                opened.add(report[1])
            elif failure is None:
                failure = WorkerStartupFailure(report[2], report[1])
        for index, process in enumerate(workers):
            if process.is_alive() or stopping or failure is not None:
                continue
            if process.pid not in opened:
                failure = WorkerStartupFailure(
                    f"a worker exited ({process.exitcode}) before the service opened; "
                    "run one worker (WORKERS=1) to see why",
                    1,
                )
                break
            forget_worker(settings, process.pid)
            logger.warning("worker %s exited (%s); starting another", process.pid, process.exitcode)
            workers[index] = spawn()
        if failure is not None:
            stop(signal.SIGTERM, None)
    for process in workers:
        process.join(settings.shutdown_grace + STOP_TIMEOUT_MARGIN)
        if process.is_alive():
            process.kill()
            process.join()
    if failure is not None:
        raise failure
    return 0


def _spawn(context: Any, sockets: Sockets, reports: Connection) -> BaseProcess:
    process = context.Process(target=_worker_main, args=(sockets, reports), name="app-worker")
    process.start()
    return process


def _worker_main(sockets: Sockets, reports: Connection) -> None:
    """Serve on the inherited sockets, with the settings read in this process.

    The supervisor hears when the service is open, or the one line of why it did not
    open (it prints it once, for every worker), and this process exits with its status.
    """

    def report_open() -> None:
        reports.send(("open", multiprocessing.current_process().pid))

    try:
        run_event_loop(serve_forever(Settings(), sockets, on_open=report_open))
    except ConfigurationError as exc:
        reports.send(("failed", 2, exc.detail))
        sys.exit(2)
    except StartupFailure as exc:
        reports.send(("failed", 1, str(exc)))
        sys.exit(1)
