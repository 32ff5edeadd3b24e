"""The service process at one moment (RSS, FDs, sockets, threads), and waiting for FDs to settle."""

from __future__ import annotations

import asyncio
import contextlib
import os
from dataclasses import dataclass
from pathlib import Path


@dataclass
class ProcessSample:
    """The service process at one moment."""

    t: float
    """Seconds since the load started (negative: before it)."""
    rss_mb: float
    fds: int
    sockets: int
    threads: int
    active_streams: int = 0


def sample_process(pid: int, t: float, active: int = 0) -> ProcessSample:
    """Read RSS and threads from /proc/<pid>/status and the FDs from /proc/<pid>/fd."""
    status = Path(f"/proc/{pid}/status").read_text()
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    rss_kb = int(fields["VmRSS"].split()[0])
    targets = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        with contextlib.suppress(OSError):  # closed between listing and reading
            targets.append(os.readlink(f"/proc/{pid}/fd/{fd}"))
    sockets = sum(target.startswith("socket:") for target in targets)
    threads = int(fields["Threads"])
    return ProcessSample(
        round(t, 2), round(rss_kb / 1024, 1), len(targets), sockets, threads, active
    )


POLL_INTERVAL = 0.5


STEADY_SECONDS = 6.0
"""How long the FD count must not change to count as steady: longer than Hypercorn's
keep-alive timeout (5 s), after which it closes connections its clients left idle."""


async def wait_until_fds_steady(pid: int, settle: float) -> None:
    """Poll until the FD count is unchanged for STEADY_SECONDS, or `settle` seconds pass."""
    counts: list[int] = []
    window = round(STEADY_SECONDS / POLL_INTERVAL) + 1
    for _ in range(max(1, round(settle / POLL_INTERVAL))):
        counts.append(sample_process(pid, 0).fds)
        if len(counts) >= window and len(set(counts[-window:])) == 1:
            return
        await asyncio.sleep(POLL_INTERVAL)
