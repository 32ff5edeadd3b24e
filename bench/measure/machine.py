"""The machine as a whole: CPU busy time, waiting for a quiet moment, listen-queue counters."""

from __future__ import annotations

import time
from pathlib import Path

import psutil


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
