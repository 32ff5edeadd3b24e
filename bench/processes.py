"""Subprocesses of the benchmark: started, waited for, always stopped.

Every server runs in its own process group, started here and stopped here by its own id:
SIGTERM to the group, then SIGKILL after a grace period. `Processes` is a context manager
that stops whatever is still running on exit, also after an exception or Ctrl-C.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

STOP_GRACE = 10.0
"""Seconds a process gets to exit after SIGTERM before SIGKILL."""


def free_port() -> int:
    """Return a free TCP port on 127.0.0.1 (released first: rare races are accepted)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Child:
    """A started process, its name and its log file."""

    name: str
    popen: subprocess.Popen[bytes]
    log: Path

    @property
    def pid(self) -> int:
        """The process id (also its process group id)."""
        return self.popen.pid

    def log_tail(self, chars: int = 3000) -> str:
        """Return the end of the child's log."""
        try:
            return self.log.read_text(errors="replace")[-chars:]
        except OSError:
            return ""


class Processes:
    """Starts subprocesses and guarantees they are stopped."""

    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir
        self.children: list[Child] = []

    def __enter__(self) -> Processes:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop_all()

    def start(
        self,
        name: str,
        argv: list[str],
        *,
        env: Mapping[str, str],
        cwd: Path,
    ) -> Child:
        """Start `argv` in a new process group, output to `<log_dir>/<name>.log`."""
        self.log_dir.mkdir(parents=True, exist_ok=True)
        log = self.log_dir / f"{name}.log"
        with log.open("wb") as out:
            popen = subprocess.Popen(
                argv,
                env=dict(env),
                cwd=cwd,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        child = Child(name, popen, log)
        self.children.append(child)
        return child

    def stop(self, child: Child) -> None:
        """SIGTERM the child's process group, wait, then SIGKILL it; reap the child."""
        if child in self.children:
            self.children.remove(child)
        popen = child.popen
        pgid = popen.pid  # start_new_session: the child leads its own group
        if popen.poll() is None:
            _signal_group(pgid, signal.SIGTERM)
            try:
                popen.wait(STOP_GRACE)
            except subprocess.TimeoutExpired:
                _signal_group(pgid, signal.SIGKILL)
                popen.wait(STOP_GRACE)
        # Anything the child left behind in its group goes too.
        _signal_group(pgid, signal.SIGKILL)

    def stop_all(self) -> None:
        """Stop every child still running, newest first."""
        for child in reversed(list(self.children)):
            try:
                self.stop(child)
            except Exception as exc:  # keep stopping the others
                print(f"bench: could not stop {child.name} ({child.pid}): {exc}", flush=True)


def _signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def wait_for_line(child: Child, prefix: str, timeout: float) -> str:
    """Wait until the child's log has a line starting with `prefix`; return its remainder."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for line in child.log_tail(100_000).splitlines():
            if line.startswith(prefix):
                return line[len(prefix) :].strip()
        if child.popen.poll() is not None:
            break
        time.sleep(0.05)
    raise RuntimeError(
        f"{child.name} printed no {prefix!r} line (exit code {child.popen.poll()}):\n"
        + child.log_tail()
    )


def wait_for_http(child: Child, url: str, timeout: float) -> None:
    """Wait until GET `url` answers 200, or fail with the child's log when it dies."""
    deadline = time.monotonic() + timeout
    last = ""
    while time.monotonic() < deadline:
        if child.popen.poll() is not None:
            break
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
                last = f"HTTP {response.status}"
        except (urllib.error.URLError, OSError) as exc:
            last = str(exc)
        time.sleep(0.1)
    raise RuntimeError(
        f"{child.name} did not answer 200 on {url} ({last}; exit code "
        f"{child.popen.poll()}):\n{child.log_tail()}"
    )
