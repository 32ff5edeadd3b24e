"""The ids of what is being done now (request, run, thread, user, trace), for logs and traces.

Set by the HTTP hooks (trace id, user, the request span's traceparent) and by the runner
in each run's task (run, thread, user, trace); read by the JSON log format, by the
runner, which stamps the request's trace id on the run, and by the streamed runs, which
store the traceparent with the run for followers elsewhere. Imports nothing: every layer
may use it.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

LOG_IDS: ContextVar[dict[str, str] | None] = ContextVar("log_ids", default=None)
"""The ids known in this context: run_id, thread_id, user_id, trace_id (as far as known)."""


TRACE_PARENT: ContextVar[str | None] = ContextVar("trace_parent", default=None)
"""The W3C `traceparent` of this context's request span, when traces are on (not logged)."""


def bind_log_ids(**ids: Any) -> None:
    """Add ids (None values are skipped) to this context's, without changing the caller's."""
    known = {key: str(value) for key, value in ids.items() if value is not None}
    if known:
        LOG_IDS.set({**(LOG_IDS.get() or {}), **known})


def current_log_ids() -> dict[str, str]:
    """Return the ids known in this context (empty outside any request or run)."""
    return LOG_IDS.get() or {}


def current_trace_id() -> str | None:
    """Return the trace id of this context's request, when tracing is on."""
    return current_log_ids().get("trace_id")


def bind_trace_parent(trace_parent: str) -> None:
    """Record the `traceparent` of this context's request span (the HTTP tracing hook)."""
    TRACE_PARENT.set(trace_parent)


def current_trace_parent() -> str | None:
    """Return the `traceparent` of this context's request span, or None without traces."""
    return TRACE_PARENT.get()
