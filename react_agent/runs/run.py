"""One question being answered: its task, and the log of its events that clients follow."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

from react_agent.access.actor import Actor
from react_agent.access.scope import Scope
from react_agent.errors import ServiceError
from react_agent.runs.events.event_log import EventLog
from react_agent.runs.events.events import RunEvent, RunFailed, RunFinished, RunResult
from react_agent.runs.events.listeners import RunListeners


class Run:
    """One question being answered: a task, and the log of its events in order."""

    def __init__(
        self, thread_id: str, lang: str | None, listeners: RunListeners | None = None
    ) -> None:
        self.run_id = uuid.uuid4().hex
        self.thread_id = thread_id
        self.lang = lang
        self.listeners = listeners
        """Told of every event (react_agent.runs.events.listeners); None tells no one."""
        self.trace_id: str | None = None
        """The trace of the request that started the run, when tracing is on."""
        self.log: EventLog[RunEvent] = EventLog()
        """Its events in order; ended by the final one (RunFinished or RunFailed)."""
        self.task: asyncio.Task[None] | None = None
        self.cancel_reason: ServiceError | None = None
        self.scope: Scope | None = None
        self.actor: Actor | None = None
        """Who asked (access.Actor), when the accept path resolved one."""
        """What the asking user may see, for this run's whole life (access.Scope)."""

    @property
    def events(self) -> list[RunEvent]:
        """The events so far, in order."""
        return self.log.items

    @property
    def done(self) -> bool:
        """Whether the final event (RunFinished or RunFailed) is in the log."""
        return self.log.ended

    def append(self, event: RunEvent) -> None:
        """Add an event and wake every follower (the final one ends the log)."""
        self.log.append(event)
        if isinstance(event, RunFinished | RunFailed):
            self.log.end()
        if self.listeners is not None:
            self.listeners.notify(self, event)

    def report(self, event: object) -> None:
        """Tell the listeners of an event that is not for the log (runs/events/listeners)."""
        if self.listeners is not None:
            self.listeners.notify(self, event)

    def follow(
        self, after: int = 0, *, idle_timeout: float | None = None
    ) -> AsyncIterator[tuple[int, RunEvent | None]]:
        """Yield `(seq, event)` for events after sequence number `after`, until the end.

        Sequence numbers start at 1. With `idle_timeout`, `(seq, None)` is yielded each time
        that many seconds pass without an event (streams send a heartbeat then).
        """
        return self.log.follow(after, idle_timeout=idle_timeout)

    async def outcome(self) -> RunResult:
        """Wait for the end of the run; return its result or raise its error."""
        async for _, event in self.follow(len(self.events) - 1 if self.done else 0):
            if isinstance(event, RunFinished):
                return event.result
            if isinstance(event, RunFailed):
                raise event.error
        raise ServiceError(500, "AGENT_FAILED", "run ended without a result")

    async def result(self) -> RunResult:
        """Like `outcome`, but the run is cancelled if the caller is (its client went away)."""
        try:
            return await self.outcome()
        except asyncio.CancelledError:
            self.cancel()
            raise

    def cancel(self, reason: ServiceError | None = None) -> None:
        """Stop the run (its model call and any running query); `reason` is its error."""
        if self.task is not None and not self.task.done():
            self.cancel_reason = reason
            self.task.cancel()
