"""`Sampler`: watches the process trees under test from a thread.

It samples peak RSS (every 50 ms) and CPU seconds per window, plus every socket they hold
that is not on the loopback interface (the benchmark must not reach any outside address).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

import psutil

from bench.measure.machine import listen_queue_counters, system_busy_seconds
from bench.measure.sockets import outside_socket_table, socket_inodes


def _tree(pid: int, children: bool = True) -> list[psutil.Process]:
    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)] if children else [root]
    except psutil.Error:
        return []


def _cpu_seconds(procs: list[psutil.Process]) -> float:
    total = 0.0
    for proc in procs:
        try:
            times = proc.cpu_times()
            total += times.user + times.system
        except psutil.Error:
            pass
    return total


def _matching(text: str) -> list[psutil.Process]:
    """Return every process whose command line contains `text`."""
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        if text in " ".join(proc.info.get("cmdline") or []):
            found.append(proc)
    return found


def _rss(procs: list[psutil.Process]) -> int:
    total = 0
    for proc in procs:
        try:
            total += proc.memory_info().rss
        except psutil.Error:
            pass
    return total


def tree_rss_mb(pid: int) -> float:
    """Return the RSS of `pid` and all its descendants now, in MB."""
    return round(_rss(_tree(pid)) / 2**20, 1)


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
        self._ours: list[tuple[int, bool, str | None]] = []
        self._ours0 = 0.0

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

    def count_as_ours(
        self, pid: int = 0, *, children: bool = True, matching: str | None = None
    ) -> None:
        """Count the CPU of `pid` (or of the processes matching) as the benchmark's, unsampled.

        For processes of the benchmark that idle while another of its processes measures
        (the servers while the in-process graph runs a level): their CPU is not other
        load, yet sampling them would add to the measuring process's own CPU. Read at
        `begin()` and `end()` only.
        """
        self._ours.append((pid, children, matching))

    def _ours_cpu(self) -> float:
        return sum(
            _cpu_seconds(_matching(text) if text is not None else _tree(pid, children))
            for pid, children, text in self._ours
        )

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
        self._ours0 = self._ours_cpu()
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
        ours = self._ours_cpu() - self._ours0
        foreign = system_busy_seconds() - self._busy0 - sum(cpu.values()) - ours
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
            return _matching(text)
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
        outside = outside_socket_table()
        if not outside:
            return  # the common case: one read of the kernel's tables, no process's
        with self._lock:
            watched = dict(self.watched)
        for name, pid in watched.items():
            for proc in self._procs(name, pid):
                for inode in socket_inodes(proc.pid) & outside.keys():
                    socket = outside[inode]
                    record = {
                        "process": name,
                        "pid": proc.pid,
                        "local": socket.local,
                        "remote": socket.remote,
                        "status": socket.status,
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
