"""RUNS_MAX_ACTIVE=auto: runs at once sized from the cores, raised while the CPU has room.

A run spends most of its time waiting for the model. With a fast model, past a few dozen
runs per core the process only adds the work of switching between them to every
question, so a limit helps; with a slow one, thousands of runs wait at once for almost no
CPU, and a fixed limit would only make them queue. So `auto` starts at RUNS_PER_CORE runs
per core and, while runs wait for a slot, doubles the limit each ADAPT_INTERVAL in which
the process used less than BUSY_SHARE of a core (the event loop runs on one), and steps
it back towards the start while the process is that busy or nobody waits.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from typing import Literal

from react_agent.runs.admission.queue import Admission

RUNS_PER_CORE = 16
"""Runs at once per core at first (32 on 2 cores: bench/results/admission-and-slow-model.md)."""

ADAPT_INTERVAL = 0.5
"""Seconds between two looks at the process's CPU while runs wait."""

BUSY_SHARE = 0.85
"""Share of one core above which the process counts as busy (the limit is not raised)."""


def usable_cores() -> int:
    """Return the CPU cores this process may run on (its affinity, else every core)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        return os.cpu_count() or 1


def max_active_runs(setting: int | Literal["auto"], cores: int | None = None) -> int:
    """Return RUNS_MAX_ACTIVE as a count: itself, or for auto the limit to start from."""
    if setting == "auto":
        return RUNS_PER_CORE * (cores if cores is not None else usable_cores())
    return setting


class AutoLimit:
    """Raises an admission's limit while runs wait and the CPU has room; lowers it back.

    Args:
        admission: The admission whose `max_active` it moves (never below its start).
        cpu_clock: Seconds of CPU this process used (all threads).
        clock: Monotonic seconds.

    """

    def __init__(
        self,
        admission: Admission,
        cpu_clock: Callable[[], float] = time.process_time,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.admission = admission
        self.floor = admission.max_active
        self.cpu_clock = cpu_clock
        self.clock = clock
        self._timer: asyncio.TimerHandle | None = None
        self._since = (0.0, 0.0)
        admission.on_queued = self.watch
        admission.on_full = self.make_room

    def make_room(self) -> None:
        """Let the head of a full queue in rather than refuse a newcomer.

        A burst (thousands of streams at once, the CPU busy taking them in) must not be
        refused for a limit that is only a guess: auto bounds the runs at once only while
        the queue has room (RUNS_MAX_QUEUED), as no limit would have taken them all.
        """
        admission = self.admission
        # Above the runs now going, which a limit lowered meanwhile may be below.
        admission.max_active = max(admission.max_active, admission.active) + 1
        admission.grant_waiting()

    def watch(self) -> None:
        """Start looking at the CPU every ADAPT_INTERVAL (once runs wait)."""
        if self._timer is None:
            self._since = (self.clock(), self.cpu_clock())
            loop = asyncio.get_running_loop()
            self._timer = loop.call_later(ADAPT_INTERVAL, self.adapt)

    def adapt(self) -> None:
        """Move the limit by the CPU used since the last look; look again while runs wait."""
        self._timer = None
        now, cpu = self.clock(), self.cpu_clock()
        share = (cpu - self._since[1]) / max(now - self._since[0], 1e-9)
        admission = self.admission
        if admission.queue and share < BUSY_SHARE:
            admission.max_active *= 2
            admission.grant_waiting()
        else:  # busy, or nobody waits: back towards the start
            admission.max_active = max(self.floor, admission.max_active * 3 // 4)
        if admission.queue or admission.max_active > self.floor:
            self.watch()


def open_admission(setting: int | Literal["auto"], max_queued: int) -> Admission:
    """Return the admission for RUNS_MAX_ACTIVE and RUNS_MAX_QUEUED (auto: an AutoLimit on it)."""
    admission = Admission(max_active_runs(setting), max_queued)
    if setting == "auto":
        AutoLimit(admission)  # kept by the admission, as its on_queued
    return admission
