"""Where code running inside a run's graph (a sub-agent in a tool) adds events to the run."""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any


def _no_steps() -> int:
    return 0


def _tell_no_one(event: Any) -> None:
    return None


@dataclass(frozen=True)
class EventSink:
    """The running question's event log, and whether its client wants model tokens."""

    append: Callable[[Any], None]
    stream_tokens: bool = False
    steps: Callable[[], int] = _no_steps
    """Nodes of the graph finished so far: the node running now is step `steps() + 1`."""
    subagent: dict[str, str] | None = None
    """`{id, description}` when the code runs in a sub-agent's graph (react_agent/subagents)."""
    report: Callable[[Any], None] = _tell_no_one
    """Tells the run's listeners of an event that is not for the log (runs/events/listeners)."""


CURRENT_EVENT_SINK: ContextVar[EventSink | None] = ContextVar("run_event_sink", default=None)
"""Set by the runner for the run's task; the graph's tasks inherit it (asyncio copies it)."""


def current_event_sink() -> EventSink | None:
    """Return the event sink of the run this code runs in, or None outside a run."""
    return CURRENT_EVENT_SINK.get()
