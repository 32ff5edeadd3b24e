"""A CPU-time stack sampler: where this process's CPU goes, robust to other load.

`ITIMER_PROF` fires after every `interval` seconds of the process's CPU time (user and
system, all threads), so other processes on the machine change nothing but the wall time.
Python runs the handler in the main thread with the frame it interrupted: that stack is
charged to its area (bench/report/areas.py). When the main thread is only waiting in the
event loop's selector, the CPU went to another thread (aiosqlite's, a worker thread), and
that thread's stack is charged instead when it is not waiting itself.
"""

from __future__ import annotations

import linecache
import re
import signal
import sys
import threading
from collections import Counter
from types import CodeType, FrameType
from typing import Any

from bench.measure.areas import OTHER, area_of

_WAITING_CALLS = re.compile(r"\.(get|wait|select|poll|acquire)\(")
"""A leaf line that calls one of these (in C) is a thread waiting, not working: a queue's
get (aiosqlite's worker), a lock's acquire, the selector's poll."""

_waiting_lines: dict[tuple[str, int], bool] = {}


def _waiting(frame: FrameType) -> bool:
    key = (frame.f_code.co_filename, frame.f_lineno or 0)
    waiting = _waiting_lines.get(key)
    if waiting is None:
        line = linecache.getline(*key) if key[1] else ""
        waiting = _waiting_lines[key] = bool(_WAITING_CALLS.search(line))
    return waiting


def _codes(frame: FrameType | None) -> list[CodeType]:
    codes: list[CodeType] = []
    while frame is not None:
        codes.append(frame.f_code)
        frame = frame.f_back
    return codes


class CpuSampler:
    """Count CPU-time samples by area, leaf function and inclusive function.

    Use as a context manager around the work to profile; `interval` seconds of CPU per sample.
    """

    def __init__(self, interval: float = 0.001) -> None:
        self.interval = interval
        self.areas: Counter[str] = Counter()
        self.leaves: Counter[str] = Counter()
        self.inclusive: Counter[str] = Counter()
        self.samples = 0
        self._area_cache: dict[tuple[CodeType, ...], str] = {}
        self._previous: Any = None
        self._main = threading.main_thread().ident

    def __enter__(self) -> CpuSampler:
        self._previous = signal.signal(signal.SIGPROF, self._on_sample)
        signal.setitimer(signal.ITIMER_PROF, self.interval, self.interval)
        return self

    def __exit__(self, *exc: object) -> None:
        signal.setitimer(signal.ITIMER_PROF, 0, 0)
        signal.signal(signal.SIGPROF, self._previous or signal.SIG_DFL)

    def _on_sample(self, signum: int, frame: FrameType | None) -> None:
        try:
            self._count(frame)
        except Exception:  # never let the profiler change what it measures
            self.areas["(sampler error)"] += 1

    def _count(self, frame: FrameType | None) -> None:
        if frame is not None and _waiting(frame):
            frame = self._busy_other_thread() or frame
        codes = _codes(frame)
        key = tuple(codes)
        area = self._area_cache.get(key)
        if area is None:
            area = self._area_cache[key] = area_of([code.co_filename for code in codes])
        self.samples += 1
        self.areas[area] += 1
        if codes:
            self.leaves[_name(codes[0])] += 1
        for name in {_name(code) for code in codes}:
            self.inclusive[name] += 1

    def _busy_other_thread(self) -> FrameType | None:
        for ident, frame in sys._current_frames().items():
            if ident != self._main and not _waiting(frame):
                return frame
        return None

    def ms_per_question(self, cpu_seconds: float, questions: int) -> dict[str, float]:
        """Spread `cpu_seconds` (measured without the sampler) over the areas, per question."""
        if not self.samples or not questions:
            return {}
        per_question = 1000 * cpu_seconds / questions
        return {
            area: per_question * count / self.samples for area, count in self.areas.most_common()
        }

    def top(self, counter: Counter[str], limit: int) -> list[tuple[str, float]]:
        """Return the `limit` commonest entries of `counter`, in percent of the samples."""
        return [(name, 100 * n / self.samples) for name, n in counter.most_common(limit)]


def _name(code: CodeType) -> str:
    path = code.co_filename
    for marker in ("site-packages/", "/react_agent/", "/bench/", "/app/", "/lib/python3"):
        if marker in path:
            path = marker.strip("/").split("/")[0] + "/" + path.split(marker, 1)[1]
            break
    return f"{code.co_name} ({path}:{code.co_firstlineno})"


__all__ = ["OTHER", "CpuSampler"]
