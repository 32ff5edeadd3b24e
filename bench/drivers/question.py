"""What every driver asks and what it reports back: the question, a `Sample`, a `Question`."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

QUESTION = "每个地区的销售额是多少"
"""The one question of the benchmark; the stub answers it alike on every side."""


@dataclass
class Sample:
    """One question as the client saw it; times in seconds from sending the request."""

    ok: bool
    total: float
    started: float | None = None
    """Time to the first event: `started` (ours, Flask), `metadata` (LangGraph's server)."""
    first_node: float | None = None
    """Time to the first node's update (`trim_messages`), comparable across all sides."""
    error: str | None = None


Question = Callable[[int, int], Awaitable[Sample]]
"""`(question index, worker index) -> Sample`."""


def failed_sample(t0: float, error: BaseException | str) -> Sample:
    """Return a failed sample that took from `t0` (perf_counter) until now."""
    text = error if isinstance(error, str) else f"{type(error).__name__}: {error}"
    return Sample(ok=False, total=time.perf_counter() - t0, error=text[:200])


@dataclass
class OpenStreams:
    """How many streams are open now (response headers received, not yet ended) and at most."""

    now: int = 0
    peak: int = 0

    def opened(self) -> None:
        """Count a stream whose response began."""
        self.now += 1
        self.peak = max(self.peak, self.now)

    def closed(self) -> None:
        """Count a stream that ended (or failed) after it began."""
        self.now -= 1
