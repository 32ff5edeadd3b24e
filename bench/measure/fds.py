"""File descriptors: the bench process's own limit, and those a server's process tree holds."""

from __future__ import annotations

import asyncio
import resource

import psutil

FD_HEADROOM = 512
"""Descriptors beyond one per stream: the client's own files, sockets to other sides."""


def raise_open_files_limit(wanted: int) -> int:
    """Raise this process's soft RLIMIT_NOFILE to `wanted` (at most the hard limit).

    Children started afterwards inherit it, so the servers can hold as many sockets.
    Returns the soft limit now in force.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def tree_fds(pid: int) -> int:
    """Return the file descriptors open in `pid` and all its descendants (0 if gone)."""
    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.Error:
        return 0
    total = 0
    for proc in procs:
        try:
            total += proc.num_fds()
        except psutil.Error:
            pass
    return total


STEADY_SECONDS = 6.0
"""How long the count must not change to count as steady: longer than Hypercorn's
keep-alive timeout (5 s), after which it closes connections its clients left idle."""
POLL_SECONDS = 0.5


async def steady_fds(pid: int, settle: float) -> tuple[int, float]:
    """Wait until the tree's FD count is unchanged for STEADY_SECONDS (at most `settle` s).

    Returns the last count and the seconds waited.
    """
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    counts: list[int] = []
    window = round(STEADY_SECONDS / POLL_SECONDS) + 1
    while True:
        counts.append(await asyncio.to_thread(tree_fds, pid))
        waited = loop.time() - t0
        if len(counts) >= window and len(set(counts[-window:])) == 1:
            return counts[-1], round(waited, 1)
        if waited >= settle:
            return counts[-1], round(waited, 1)
        await asyncio.sleep(POLL_SECONDS)


def fd_breakdown(pid: int, server_port: int, model_port: int) -> dict[str, int]:
    """Count the tree's descriptors by kind: client connections, model connections, other."""
    counts = {"total": 0, "client_connections": 0, "model_connections": 0, "other_sockets": 0}
    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.Error:
        return counts
    for proc in procs:
        try:
            counts["total"] += proc.num_fds()
            connections = proc.net_connections(kind="inet")
        except psutil.Error:
            continue
        for conn in connections:
            if conn.laddr and conn.laddr.port == server_port and conn.raddr:
                counts["client_connections"] += 1
            elif conn.raddr and conn.raddr.port == model_port:
                counts["model_connections"] += 1
            else:
                counts["other_sockets"] += 1
    counts["other"] = counts["total"] - sum(v for k, v in counts.items() if k != "total")
    return counts
