"""The stub LLM and the service as real subprocesses, for end-to-end tests.

Some tests need the service exactly as it is deployed: `python -m app` in its own process,
talking HTTP to an OpenAI-compatible server (the newman collection, a browser test, a
restart test). This module starts both and always stops them again::

    with start_stub_llm() as llm_url, start_service_process(
        {"OPENAI_BASE_URL": llm_url}, tmp_path
    ) as base_url:
        httpx.get(f"{base_url}/health")

`start_service_process` returns once `GET /health` answers 200 (or raises with the tail of
the service's log). Calling it again with the same `tmp_path` starts a new process on the
same checkpoint database, which is what a restart test needs. The lower-level pieces
(`spawn_service`, `wait_until_ready`, `stop_process`) are public for tests that need to
hold the process itself, e.g. to kill it abruptly.
"""

from __future__ import annotations

import http.client
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from config import Settings

REPO_ROOT = Path(__file__).resolve().parents[2]
"""The repository root: the working directory of both subprocesses, so `app` imports."""

READY_TIMEOUT = 120.0
"""Seconds a subprocess gets to become ready (a loaded CI machine can be slow; one that exits
fails at once instead)."""

STOP_TIMEOUT = 10.0
"""Seconds a subprocess gets to exit after SIGTERM before it is killed."""

_POLL_INTERVAL = 0.1
_LOG_TAIL_CHARS = 4000


def free_port(host: str = "127.0.0.1") -> int:
    """Return a TCP port on `host` that is free now.

    The port is released before it is returned, so another process could take it before
    the caller binds it; on a test machine that is rare enough to accept.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def stop_process(process: subprocess.Popen, timeout: float = STOP_TIMEOUT) -> None:
    """Stop a subprocess: SIGTERM, wait up to `timeout` seconds, then SIGKILL and reap it."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout)


class _LineCollector:
    """Drains a subprocess's text output in a thread and waits for a line with a prefix.

    Draining keeps the pipe from filling up and blocking the child; the lines are kept for
    error messages.
    """

    def __init__(self, process: subprocess.Popen, prefix: str) -> None:
        self.lines: list[str] = []
        self.match: str | None = None
        self._prefix = prefix
        self._found = threading.Event()
        self._thread = threading.Thread(target=self._drain, args=(process,), daemon=True)
        self._thread.start()

    def _drain(self, process: subprocess.Popen) -> None:
        assert process.stdout is not None
        for line in process.stdout:
            self.lines.append(line)
            if self.match is None and line.startswith(self._prefix):
                self.match = line.strip()
                self._found.set()
        self._found.set()  # EOF: the process ended without the line

    def wait(self, timeout: float) -> str | None:
        """Return the first line starting with the prefix, or None on EOF or timeout."""
        self._found.wait(timeout)
        return self.match

    def join(self, timeout: float) -> None:
        """Wait for the drain thread to finish (after the process has ended)."""
        self._thread.join(timeout)


@contextmanager
def start_stub_llm(*, latency_ms: float = 0.0, timeout: float = READY_TIMEOUT) -> Iterator[str]:
    """Run `python -m tests.support.openai_stub --port 0`; yield its OpenAI base URL.

    The stub serves its deterministic default policy (a `run_sql` call with a sales-per-
    region query, then an answer quoting the result) on a loopback port it picks itself,
    and prints `OPENAI_BASE_URL=http://127.0.0.1:PORT/v1` once it listens.

    Args:
        latency_ms: Fixed delay the stub adds before every response.
        timeout: Seconds to wait for the URL line.

    Raises:
        RuntimeError: The stub exited or printed no URL within `timeout`.

    """
    command = [sys.executable, "-m", "tests.support.openai_stub", "--port", "0"]
    if latency_ms:
        command += ["--latency-ms", str(latency_ms)]
    process = subprocess.Popen(
        command,
        cwd=REPO_ROOT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        encoding="utf-8",
        errors="replace",
    )
    output = _LineCollector(process, "OPENAI_BASE_URL=")
    try:
        line = output.wait(timeout)
        if line is None:
            raise RuntimeError(
                f"the stub LLM printed no OPENAI_BASE_URL line within {timeout:.0f} s "
                f"(exit code {process.poll()}); its output:\n{''.join(output.lines)}"
            )
        yield line.partition("=")[2]
    finally:
        stop_process(process)
        output.join(STOP_TIMEOUT)
        assert process.stdout is not None
        process.stdout.close()


@dataclass
class ServiceProcess:
    """A service started by `spawn_service`: its process, URL and log file."""

    process: subprocess.Popen
    base_url: str
    log_path: Path

    def log_tail(self, chars: int = _LOG_TAIL_CHARS) -> str:
        """Return the end of the service's combined stdout and stderr."""
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            return f"(cannot read {self.log_path}: {exc})"
        return text[-chars:]


def service_environment(env_overrides: Mapping[str, str] | None, tmp_path: Path) -> dict[str, str]:
    """Return the environment of a service subprocess.

    The parent's environment minus every service setting it may carry (so a developer's
    shell cannot change what the test runs against), then test defaults: HOST=127.0.0.1,
    a free PORT, OPENAI_API_KEY=test, checkpoints in `tmp_path/cp.db`, DATA_DIR=`tmp_path`,
    ANSWER_CANDIDATES=off (scripts count model calls); then `env_overrides`. Settings from
    a `.env` file in the repository root still apply where nothing here sets them, as they
    would for `python -m app`.
    """
    setting_names = {name.upper() for name in Settings.model_fields}
    env = {key: value for key, value in os.environ.items() if key.upper() not in setting_names}
    env.update(
        HOST="127.0.0.1",
        PORT=str(free_port()),
        OPENAI_API_KEY="test",
        CHECKPOINT_DATABASE_URL=f"sqlite:///{tmp_path / 'cp.db'}",
        DATA_DIR=str(tmp_path),
        ANSWER_CANDIDATES="off",
        PYTHONUNBUFFERED="1",
    )
    env.update(env_overrides or {})
    return env


def spawn_service(env_overrides: Mapping[str, str] | None, tmp_path: Path) -> ServiceProcess:
    """Start `python -m app` from the repository root, without waiting for it to be ready.

    Its output goes to `tmp_path/service-<port>.log` (a file, so a chatty access log can
    never block it). See `service_environment` for the environment it gets.
    """
    env = service_environment(env_overrides, tmp_path)
    host, port = env["HOST"], env["PORT"]
    log_path = tmp_path / f"service-{port}.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "app"],
            cwd=REPO_ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    return ServiceProcess(process, f"http://{host}:{port}", log_path)


def health_status(base_url: str, timeout: float = 2.0) -> int | None:
    """Return the HTTP status of `GET /health`, or None when nothing answers."""
    try:
        with urllib.request.urlopen(f"{base_url}/health", timeout=timeout) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return exc.code
    except (OSError, http.client.HTTPException):
        return None


def wait_until_ready(
    service: ServiceProcess, *, timeout: float = READY_TIMEOUT, ready_status: int | None = 200
) -> None:
    """Poll `GET /health` until it answers `ready_status` (None: any status).

    Between polls it waits on the process itself, so a service that dies is noticed at
    once instead of at the deadline.

    Raises:
        RuntimeError: The process exited, or the deadline passed; with the log's tail.

    """
    deadline = time.monotonic() + timeout
    last: int | None = None
    while True:
        last = health_status(service.base_url)
        if last is not None and (ready_status is None or last == ready_status):
            return
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise RuntimeError(
                f"{service.base_url}/health did not answer {ready_status or 'at all'} within "
                f"{timeout:.0f} s (last status: {last}); service log:\n{service.log_tail()}"
            )
        try:
            code = service.process.wait(min(_POLL_INTERVAL, remaining))
        except subprocess.TimeoutExpired:
            continue
        raise RuntimeError(
            f"the service exited with code {code} before it was ready; service log:\n"
            f"{service.log_tail()}"
        )


@contextmanager
def start_service_process(
    env_overrides: Mapping[str, str] | None,
    tmp_path: Path,
    *,
    ready_timeout: float = READY_TIMEOUT,
    ready_status: int | None = 200,
) -> Iterator[str]:
    """Run the service as `python -m app` until the block ends; yield its base URL.

    Args:
        env_overrides: Environment variables for the service, over the test defaults of
            `service_environment`; give at least OPENAI_BASE_URL (e.g. from
            `start_stub_llm`), or the agent has no LLM and /health never answers 200.
        tmp_path: Directory for the checkpoint database, the data dir and the log.
        ready_timeout: Seconds the service gets to answer /health.
        ready_status: The /health status that means started; None accepts any answer
            (for tests of a service that is up but not ready, e.g. without an LLM).

    Raises:
        RuntimeError: The service exited or was not ready in time; with its log's tail.

    """
    service = spawn_service(env_overrides, tmp_path)
    try:
        wait_until_ready(service, timeout=ready_timeout, ready_status=ready_status)
        yield service.base_url
    finally:
        stop_process(service.process)
