"""Subprocesses of the benchmark (started, waited for, always stopped) and their sampling.

Every server runs in its own process group, started here and stopped here by its own id:
SIGTERM to the group, then SIGKILL after a grace period. `Processes` is a context manager
that stops whatever is still running on exit, also after an exception or Ctrl-C.

`Sampler` watches the process trees under test from a thread: peak RSS (sampled every
50 ms) and CPU seconds per window, plus every socket they hold that is not on the loopback
interface (the benchmark must not reach any outside address).
"""

from __future__ import annotations

import ipaddress
import os
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

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


def _tree(pid: int, children: bool = True) -> list[psutil.Process]:
    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)] if children else [root]
    except psutil.Error:
        return []


def system_busy_seconds() -> float:
    """CPU seconds all processes of the machine have used since boot (all cores)."""
    times = psutil.cpu_times()
    return sum(times) - times.idle - getattr(times, "iowait", 0.0)


def wait_until_quiet(
    threshold_pct: float, max_wait: float, *, window: float = 0.5, needed: int = 2
) -> tuple[float, float]:
    """Wait until the machine is quiet: `needed` windows in a row below `threshold_pct`.

    Meant for moments when the benchmark itself is idle, so what is busy is someone else
    (on a shared machine: another developer's test suite). Returns (seconds waited, busy %
    of one core in the last window); gives up after `max_wait` seconds.
    """
    t0 = time.monotonic()
    quiet = 0
    busy_pct = 0.0
    while True:
        b0 = system_busy_seconds()
        time.sleep(window)
        busy_pct = 100 * (system_busy_seconds() - b0) / window
        quiet = quiet + 1 if busy_pct < threshold_pct else 0
        waited = time.monotonic() - t0
        if quiet >= needed or waited >= max_wait:
            return round(waited, 1), round(busy_pct, 1)


def _cpu_seconds(procs: list[psutil.Process]) -> float:
    total = 0.0
    for proc in procs:
        try:
            times = proc.cpu_times()
            total += times.user + times.system
        except psutil.Error:
            pass
    return total


def _rss(procs: list[psutil.Process]) -> int:
    total = 0
    for proc in procs:
        try:
            total += proc.memory_info().rss
        except psutil.Error:
            pass
    return total


def _is_loopback(ip: str) -> bool:
    try:
        return ipaddress.ip_address(ip.split("%")[0]).is_loopback
    except ValueError:
        return False


def listen_queue_counters() -> dict[str, int]:
    """Return the kernel's TcpExt ListenOverflows and ListenDrops (SYNs dropped)."""
    try:
        lines = Path("/proc/net/netstat").read_text().splitlines()
    except OSError:
        return {}
    for names, values in zip(lines[::2], lines[1::2], strict=False):
        if names.startswith("TcpExt:"):
            table = dict(zip(names.split()[1:], values.split()[1:], strict=False))
            return {k: int(table.get(k, 0)) for k in ("ListenOverflows", "ListenDrops")}
    return {}


@dataclass
class Window:
    """What the sampler saw between `begin()` and `end()`."""

    wall_s: float
    peak_rss_mb: dict[str, float]
    cpu_s: dict[str, float]
    cpu_pct: dict[str, float]
    """CPU seconds per wall second, in percent of one core (200% is both cores)."""
    listen_overflows: int
    foreign_cpu_pct: float
    """CPU the rest of the machine used meanwhile (% of one core): other people's work."""


@dataclass
class Sampler:
    """Samples the watched process trees in a background thread."""

    watched: dict[str, int] = field(default_factory=dict)
    """Name → pid of the root of a process tree (the bench process itself included)."""
    single: set[str] = field(default_factory=set)
    """Names whose process is watched without its children (the load generator: its
    children are the servers, which are watched on their own)."""
    interval: float = 0.05
    outside_sockets: list[dict[str, Any]] = field(default_factory=list)
    """Sockets to or on a non-loopback address seen in any watched tree."""

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._peak: dict[str, int] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._t0 = 0.0
        self._cpu0: dict[str, float] = {}
        self._listen0: dict[str, int] = {}
        self._busy0 = 0.0
        self._trees: dict[str, list[psutil.Process]] = {}
        self._matching: dict[str, str] = {}

    def __enter__(self) -> Sampler:
        self._thread = threading.Thread(target=self._loop, name="bench-sampler", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)

    def watch(self, name: str, pid: int, *, children: bool = True) -> None:
        """Sample the process `pid` (and its children, unless `children` is False)."""
        with self._lock:
            self.watched[name] = pid
            if not children:
                self.single.add(name)

    def watch_matching(self, name: str, text: str) -> None:
        """Sample every process whose command line contains `text` (found anew each second).

        For processes the benchmark did not start but that work for it, e.g. the PostgreSQL
        backends of its scratch database, so that their CPU is not taken for other load.
        """
        with self._lock:
            self.watched[name] = 0
            self._matching[name] = text

    def unwatch(self, name: str) -> None:
        """Stop sampling `name`."""
        with self._lock:
            self.watched.pop(name, None)
            self._matching.pop(name, None)
            self._peak.pop(name, None)
            self._trees.pop(name, None)

    def begin(self) -> None:
        """Start a window: reset peaks, note CPU times and the kernel's listen counters."""
        with self._lock:
            watched = dict(self.watched)
            self._peak = {}
        self._cpu0 = {name: _cpu_seconds(self._procs(name, pid)) for name, pid in watched.items()}
        self._busy0 = system_busy_seconds()
        self._listen0 = listen_queue_counters()
        self._t0 = time.perf_counter()
        self._sample_once()

    def end(self) -> Window:
        """End the window: peak RSS and CPU use of each watched tree since `begin()`."""
        self._sample_once()
        wall = time.perf_counter() - self._t0
        with self._lock:
            watched = dict(self.watched)
            peaks = dict(self._peak)
        cpu = {
            name: _cpu_seconds(self._procs(name, pid)) - self._cpu0.get(name, 0.0)
            for name, pid in watched.items()
        }
        foreign = system_busy_seconds() - self._busy0 - sum(cpu.values())
        listen = listen_queue_counters()
        return Window(
            wall_s=round(wall, 3),
            peak_rss_mb={name: round(rss / 2**20, 1) for name, rss in peaks.items()},
            cpu_s={name: round(value, 2) for name, value in cpu.items()},
            cpu_pct={
                name: round(100 * value / wall, 1) if wall > 0 else 0.0
                for name, value in cpu.items()
            },
            listen_overflows=listen.get("ListenOverflows", 0)
            - self._listen0.get("ListenOverflows", 0),
            foreign_cpu_pct=round(max(0.0, 100 * foreign / wall), 1) if wall > 0 else 0.0,
        )

    def _procs(self, name: str, pid: int) -> list[psutil.Process]:
        text = self._matching.get(name)
        if text is not None:
            found = []
            for proc in psutil.process_iter(["cmdline"]):
                cmdline = " ".join(proc.info.get("cmdline") or [])
                if text in cmdline:
                    found.append(proc)
            return found
        return _tree(pid, children=name not in self.single)

    def _sample_once(self, refresh: bool = True) -> None:
        with self._lock:
            watched = dict(self.watched)
        for name, pid in watched.items():
            # Finding a tree scans /proc; between refreshes the known processes are read.
            procs = self._trees.get(name)
            if refresh or not procs or (pid and procs[0].pid != pid):
                procs = self._trees[name] = self._procs(name, pid)
            rss = _rss(procs)
            with self._lock:
                if rss > self._peak.get(name, 0):
                    self._peak[name] = rss

    def _check_sockets(self) -> None:
        with self._lock:
            watched = dict(self.watched)
        for name, pid in watched.items():
            for proc in self._procs(name, pid):
                try:
                    connections = proc.net_connections(kind="inet")
                except psutil.Error:
                    continue
                for conn in connections:
                    addresses = [a for a in (conn.laddr, conn.raddr) if a]
                    if any(not _is_loopback(a.ip) for a in addresses):
                        record = {
                            "process": name,
                            "pid": proc.pid,
                            "local": f"{conn.laddr.ip}:{conn.laddr.port}" if conn.laddr else "",
                            "remote": f"{conn.raddr.ip}:{conn.raddr.port}" if conn.raddr else "",
                            "status": conn.status,
                        }
                        with self._lock:
                            if record not in self.outside_sockets:
                                self.outside_sockets.append(record)

    def _loop(self) -> None:
        next_socket_check = next_refresh = 0.0
        while not self._stop.wait(self.interval):
            now = time.monotonic()
            refresh = now >= next_refresh
            if refresh:
                next_refresh = now + 1.0
            self._sample_once(refresh)
            if now >= next_socket_check:
                next_socket_check = now + 2.0
                self._check_sockets()
