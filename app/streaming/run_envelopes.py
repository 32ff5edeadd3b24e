"""A streamed run's envelopes, numbered `1, 2, …` and made from its own events when read."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from app.streaming.events import StreamContext, main_step, stream_envelopes
from react_agent.runs.events.event_log import Batch, EventLog
from react_agent.runs.events.events import RunEvent


class RunEnvelopes:
    """A run's stream envelopes, made from its event log each time they are read.

    The same events make the same envelopes (their timestamps are the events'), so every
    reader (a follower here, a client that reconnects, the copy into PostgreSQL) gets the
    same bytes, and a run kept in this process's memory keeps its events once.

    Args:
        log: The run's own log (`Run.log`).
        ctx: The stream's thread, user, language and options, as the run was asked.

    """

    def __init__(self, log: EventLog[RunEvent], ctx: StreamContext) -> None:
        self.log = log
        self.ctx = ctx

    def follow_batches(
        self, after: int = 0, *, idle_timeout: float | None = None
    ) -> AsyncIterator[Batch[dict[str, Any]]]:
        """Yield the envelopes after number `after` until the run ended, those ready at once.

        With `idle_timeout`, `[(seq, None)]` comes after that many seconds without one.
        """
        numbering = _Numbering(self.ctx, after)
        return self.log.follow_views(numbering.envelopes, idle_timeout=idle_timeout)


class _Numbering:
    """One reader's walk over a run's events: the envelopes they make, numbered."""

    def __init__(self, ctx: StreamContext, after: int) -> None:
        self.ctx = ctx
        self.after = after
        self.seq = 0
        self.steps = 0
        self.started = False

    def envelopes(self, events: Batch[RunEvent]) -> Batch[dict[str, Any]]:
        """Return the envelopes of `events` numbered after `after` (earlier ones are counted)."""
        batch: Batch[dict[str, Any]] = []
        for _, event in events:
            assert event is not None  # a log's batches of events hold no heartbeat
            self.steps = main_step(event, self.steps)
            for envelope in stream_envelopes(event, self.ctx, self.steps):
                if envelope["data"]["type"] == "started":
                    if self.started:
                        continue  # a run that waited first said so when it began waiting
                    self.started = True
                self.seq += 1
                if self.seq > self.after:
                    batch.append((self.seq, envelope))
        return batch
