"""A one-line progress bar on stderr for evaluation runs."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class ProgressBar:
    """Redraws `[#####.....] done/total passed N  Ts` in place as questions finish."""

    def __init__(self, total: int, stream: TextIO | None = None, width: int = 30) -> None:
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.done = 0
        self.passed = 0
        self.started = time.perf_counter()

    def advance(self, passed: bool) -> None:
        """Count one finished question and redraw."""
        self.done += 1
        self.passed += passed
        filled = self.width * self.done // max(self.total, 1)
        bar = "#" * filled + "." * (self.width - filled)
        seconds = time.perf_counter() - self.started
        self.stream.write(
            f"\r[{bar}] {self.done}/{self.total} passed {self.passed}  {seconds:.0f}s"
        )
        if self.done == self.total:
            self.stream.write("\n")
        self.stream.flush()
